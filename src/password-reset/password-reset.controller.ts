import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth } from '../common/auth/auth.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import { badRequest } from '../common/errors/relay-exception';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { ResetPasswordDto } from './dto/reset-password.dto';
import { PasswordResetService, ResetLinkCreated } from './password-reset.service';

@ApiTags('password-reset')
@Controller()
export class PasswordResetController {
  constructor(private readonly resets: PasswordResetService) {}

  @Post('team/members/:id/send-reset')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  sendReset(@Param('id', ParseIdPipe) id: number): Promise<ResetLinkCreated> {
    return this.resets.sendReset(id);
  }

  @Get('auth/reset-password/verify')
  @Auth({ public: true })
  async verify(@Query('token') token: unknown): Promise<{ ok: true }> {
    if (typeof token !== 'string' || !token) throw badRequest('token is required');
    await this.resets.usable(token);
    return { ok: true };
  }

  @Post('auth/reset-password')
  @HttpCode(200)
  @Auth({ public: true })
  async reset(@Body() dto: ResetPasswordDto): Promise<{ ok: true }> {
    await this.resets.reset(dto.token, dto.password);
    return { ok: true };
  }
}
