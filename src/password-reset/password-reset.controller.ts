import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { actorOf } from '../audit/audit-actor';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { clientAddress } from '../common/net/relay-host';
import { ADMIN_ONLY } from '../common/auth/role';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ResetPasswordDto } from './dto/reset-password.dto';
import { SendResetResponse } from './password-reset.mapper';
import { PasswordResetService, ResetMessages } from './password-reset.service';

@ApiTags('password-reset')
@Controller()
export class PasswordResetController {
  constructor(private readonly resets: PasswordResetService) {}

  @Post('team/members/:id/send-reset')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: SendResetResponse, description: 'earlier links for this member stop working' })
  @ApiErrors(400, 401, 403, 404)
  sendReset(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(ResetMessages.memberNotFound)) id: number,
  ): Promise<SendResetResponse> {
    return this.resets.sendReset(actorOf(principal), id);
  }

  @Get('auth/reset-password/verify')
  @Auth({ public: true })
  @ApiQuery({ name: 'token', required: true, type: String })
  @ApiOkResponse({ type: OkResponse, description: 'the link is still usable' })
  @ApiErrors(400, 410)
  async verify(@Query('token') token: unknown): Promise<OkResponse> {
    await this.resets.usable(token);
    return { ok: true };
  }

  @Post('auth/reset-password')
  @HttpCode(200)
  @Auth({ public: true })
  @ApiOkResponse({
    type: OkResponse,
    description: "the user is signed out everywhere; the user's PATs are revoked and their agents disconnected",
  })
  @ApiErrors(400, 403, 410)
  async reset(@Req() req: Request, @Body() dto: ResetPasswordDto): Promise<OkResponse> {
    await this.resets.reset(dto.token, dto.password, clientAddress(req));
    return { ok: true };
  }
}
