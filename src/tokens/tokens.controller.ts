import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { CreateTokenDto } from './dto/create-token.dto';
import { TokenListItem, toTokenListItem } from './tokens.mapper';
import { TokensService } from './tokens.service';

@ApiTags('tokens')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @Auth({ cookie: true })
  async list(@CurrentPrincipal() principal: Principal): Promise<TokenListItem[]> {
    return (await this.tokens.listFor(principal.userId)).map(toTokenListItem);
  }

  @Post()
  @Auth({ cookie: true })
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateTokenDto): Promise<{ token: string }> {
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
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id', ParseIdPipe) id: number): Promise<void> {
    await this.tokens.revoke(principal.userId, id);
  }
}
