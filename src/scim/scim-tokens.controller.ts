import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ScimTokensService } from '../tokens/scim-tokens.service';
import { CreateScimTokenDto, ScimTokenCreatedResponse, ScimTokenListItem, toScimTokenListItem } from './dto/scim-token.dto';

/** The bearer tokens identity providers provision with (Admin, in the browser). */
@ApiTags('scim')
@Controller('scim/tokens')
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Get()
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: [ScimTokenListItem] })
  @ApiErrors(401, 403)
  async list(): Promise<ScimTokenListItem[]> {
    return (await this.tokens.list()).map(toScimTokenListItem);
  }

  @Post()
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiCreatedResponse({ type: ScimTokenCreatedResponse, description: 'the token value, shown only once' })
  @ApiErrors(400, 401, 403)
  async create(@CurrentPrincipal() actor: Principal, @Body() dto: CreateScimTokenDto): Promise<ScimTokenCreatedResponse> {
    const { token, entity } = await this.tokens.issue(actor, dto.name);
    return { token, ...toScimTokenListItem(entity) };
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiNoContentResponse({ description: 'revoked: the next SCIM request with it is 401' })
  @ApiErrors(400, 401, 403, 404)
  async revoke(@CurrentPrincipal() actor: Principal, @Param('id', new ParseIdPipe('SCIM token not found')) id: number): Promise<void> {
    await this.tokens.revoke(actor, id);
  }
}
