import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { clientAddress } from '../common/net/relay-host';
import { TwoFactorSetupResponse } from '../two-factor/dto/two-factor.dto';
import { AuthService } from './auth.service';
import { TwoFactorSetupDto } from './dto/credentials.dto';

/**
 * Starting two-factor set-up asks for the password again (docs/auth.md): a borrowed session must
 * not put its own authenticator on the account and lock the member out. The password is a guess
 * like a sign-in, so it is here, with the throttle.
 */
@ApiTags('two-factor')
@Controller('profile/two-factor')
export class TwoFactorSetupController {
  constructor(private readonly auth: AuthService) {}

  @Post('setup')
  @HttpCode(201)
  @Auth({ cookie: true, beforeSecondFactor: true })
  @ApiCreatedResponse({ type: TwoFactorSetupResponse, description: 'a new secret; two-factor sign-in turns on once a code from it is confirmed' })
  @ApiErrors(400, 401, 403, 409, 429)
  async setup(@Req() req: Request, @CurrentPrincipal() principal: Principal, @Body() dto: TwoFactorSetupDto): Promise<TwoFactorSetupResponse> {
    const { secret, uri } = await this.auth.beginTwoFactorSetup(clientAddress(req), principal, dto.currentPassword);
    return { secret, otpauth_uri: uri };
  }
}
