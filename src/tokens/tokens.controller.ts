import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateTokenDto } from './dto/create-token.dto';
import { TokenCreatedResponse, TokenListItem, toTokenListItem } from './tokens.mapper';
import { TOKEN_NOT_FOUND, TokensService } from './tokens.service';

@ApiTags('tokens')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @Auth({ cookie: true })
  @ApiOkResponse({ type: [TokenListItem] })
  @ApiErrors(401)
  async list(@CurrentPrincipal() principal: Principal): Promise<TokenListItem[]> {
    return (await this.tokens.listFor(principal.userId)).map(toTokenListItem);
  }

  @Post()
  @Auth({ cookie: true })
  @ApiCreatedResponse({ type: TokenCreatedResponse, description: 'the token value, shown only once' })
  @ApiErrors(400, 401, 403)
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateTokenDto): Promise<TokenCreatedResponse> {
    const { token } = await this.tokens.issue(principal, {
      name: dto.name,
      expiresInDays: dto.expires_in_days,
      scope: dto.scope,
    });
    return { token };
  }

  @Delete(':id')
  @HttpCode(204)
  @Auth({ cookie: true })
  @ApiNoContentResponse({ description: 'revoked; the next request with it is 401' })
  @ApiErrors(400, 401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(TOKEN_NOT_FOUND)) id: number): Promise<void> {
    await this.tokens.revoke(principal, id);
  }
}
