import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { ADMIN_ONLY } from '../common/auth/role';
import {
  RecoveryCodesResponse,
  TwoFactorCodeDto,
  TwoFactorPolicyDto,
  TwoFactorPolicyResponse,
  TwoFactorStatusResponse,
} from './dto/two-factor.dto';
import { ParseIdPipe } from '../common/validation/parse-id.pipe';
import { TwoFactorMessages, TwoFactorService } from './two-factor.service';

/**
 * A member's own two-factor sign-in (profile page) and the team's policy (Admins). The member's
 * routes stay open to a member the policy sends to enrolment (`beforeSecondFactor`). The set-up
 * itself checks the password with the sign-in brake, so it lives in auth (TwoFactorSetupController).
 */
@ApiTags('two-factor')
@Controller()
export class TwoFactorController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Get('profile/two-factor')
  @Auth({ cookie: true, beforeSecondFactor: true })
  @ApiOkResponse({ type: TwoFactorStatusResponse })
  @ApiErrors(401)
  async status(@CurrentPrincipal() principal: Principal): Promise<TwoFactorStatusResponse> {
    const { enabled, recoveryCodesLeft } = await this.twoFactor.status(principal.userId);
    return { enabled, recovery_codes_left: recoveryCodesLeft, required: await this.twoFactor.mustKeep(principal.role) };
  }

  @Post('profile/two-factor/confirm')
  @HttpCode(200)
  @Auth({ cookie: true, beforeSecondFactor: true })
  @ApiOkResponse({ type: RecoveryCodesResponse })
  @ApiErrors(400, 401, 403, 409)
  async confirm(@CurrentPrincipal() principal: Principal, @Body() dto: TwoFactorCodeDto): Promise<RecoveryCodesResponse> {
    return { recovery_codes: await this.twoFactor.confirmEnrolment(principal, dto.code) };
  }

  @Delete('profile/two-factor')
  @HttpCode(200)
  @Auth({ cookie: true })
  @ApiOkResponse({ type: OkResponse, description: 'needs a current code or a recovery code' })
  @ApiErrors(400, 401, 403, 409)
  async disable(@CurrentPrincipal() principal: Principal, @Body() dto: TwoFactorCodeDto): Promise<OkResponse> {
    await this.twoFactor.disable(principal, dto.code);
    return { ok: true };
  }

  @Delete('team/members/:id/two-factor')
  @HttpCode(200)
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: OkResponse, description: "turns a member's two-factor sign-in off (lost phone and recovery codes)" })
  @ApiErrors(400, 401, 403, 404)
  async reset(@CurrentPrincipal() principal: Principal, @Param('id', new ParseIdPipe(TwoFactorMessages.noneForMember)) id: number): Promise<OkResponse> {
    await this.twoFactor.resetFor(principal, id);
    return { ok: true };
  }

  @Get('settings/two-factor')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: TwoFactorPolicyResponse })
  @ApiErrors(401, 403)
  async policy(): Promise<TwoFactorPolicyResponse> {
    return { required_for: await this.twoFactor.requirement() };
  }

  @Put('settings/two-factor')
  @Auth({ cookie: true, roles: ADMIN_ONLY })
  @ApiOkResponse({ type: TwoFactorPolicyResponse })
  @ApiErrors(400, 401, 403)
  async setPolicy(@CurrentPrincipal() principal: Principal, @Body() dto: TwoFactorPolicyDto): Promise<TwoFactorPolicyResponse> {
    await this.twoFactor.setRequirement(principal, dto.required_for);
    return { required_for: await this.twoFactor.requirement() };
  }
}
