import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors, OkResponse } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { unauthorized } from '../common/errors/http-error';
import { clientAddress } from '../common/net/relay-host';
import { MeResponse, toMeResponse } from '../users/users.mapper';
import { TwoFactorSignInDto } from '../two-factor/dto/two-factor.dto';
import { UsersService } from '../users/users.service';
import { AuthService } from './auth.service';
import { AuthenticatorService } from './authenticator.service';
import { AuthSessionResponse, AuthStatusResponse, LoginResponse } from './dto/auth-responses';
import { ChangePasswordDto, InitDto, LoginDto } from './dto/credentials.dto';
import { clearSessionCookie, setSessionCookie } from './session-cookie';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly authenticator: AuthenticatorService,
  ) {}

  @Get('status')
  @Auth({ public: true })
  @ApiOkResponse({ type: AuthStatusResponse })
  status(@Req() req: Request): Promise<AuthStatusResponse> {
    return this.auth.status(this.authenticator.isFromRelayHost(req));
  }

  /** The first Admin, from the relay host only (elsewhere: 403 naming `svc admin init`); 403 once any account exists. */
  @Post('init')
  @HttpCode(201)
  @Auth({ public: true })
  @ApiCreatedResponse({ type: OkResponse })
  @ApiErrors(400, 403)
  async init(@Req() req: Request, @Body() dto: InitDto): Promise<OkResponse> {
    // "Already initialized" wins over the host rule: once an account exists the answer is the same everywhere.
    await this.auth.initialize(dto.email, dto.password, this.authenticator.isFromRelayHost(req));
    return { ok: true };
  }

  @Post('login')
  @HttpCode(200)
  @Auth({ public: true })
  @ApiOkResponse({ type: LoginResponse, description: 'sets the svc_token cookie (7 days)' })
  @ApiErrors(400, 401, 403, 429, 503)
  async login(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() dto: LoginDto,
  ): Promise<LoginResponse> {
    const outcome = await this.auth.login(clientAddress(req), dto.email, dto.password);
    if (outcome.challenge !== undefined) return { ok: true, role: outcome.role, two_factor_required: true, challenge: outcome.challenge };
    setSessionCookie(req, res, outcome.session.token);
    return { ok: true, role: outcome.role };
  }

  /** Beyond the spec: the second step of a sign-in with two-factor (docs/auth.md); sets the cookie. */
  @Post('login/two-factor')
  @HttpCode(200)
  @Auth({ public: true })
  @ApiOkResponse({ type: LoginResponse, description: 'sets the svc_token cookie (7 days)' })
  @ApiErrors(400, 401, 403, 429)
  async loginTwoFactor(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() dto: TwoFactorSignInDto,
  ): Promise<LoginResponse> {
    const { role, session } = await this.auth.completeTwoFactor(clientAddress(req), dto.challenge, dto.code);
    setSessionCookie(req, res, session.token);
    return { ok: true, role };
  }

  @Post('logout')
  @HttpCode(200)
  @Auth({ cookie: true, beforeSecondFactor: true })
  @ApiOkResponse({ type: OkResponse, description: 'ends this session and clears the cookie' })
  @ApiErrors(401, 403)
  async logout(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<OkResponse> {
    await this.auth.logout(principal);
    clearSessionCookie(req, res);
    return { ok: true };
  }

  /** Beyond the spec: /auth/me's answer, or null when signed out, always 200 (the dashboard's first probe). */
  @Get('session')
  @Auth({ public: true })
  @ApiOkResponse({ type: AuthSessionResponse })
  async session(@Req() req: Request): Promise<AuthSessionResponse> {
    const principal = await this.authenticator.signedInMember(req);
    const user = principal ? await this.users.findById(principal.userId) : null;
    return {
      me: user ? toMeResponse(user) : null,
      two_factor_enrolment_required: principal && user ? await this.authenticator.mustEnrolSecondFactor(user, principal.signInMethod ?? 'password') : false,
    };
  }

  @Get('me')
  @Auth({ cookie: true, beforeSecondFactor: true })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrors(401)
  async me(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    const user = await this.users.findById(principal.userId);
    if (!user) throw unauthorized();
    return toMeResponse(user);
  }

  @Post('change-password')
  @HttpCode(200)
  @Auth({ cookie: true })
  @ApiOkResponse({ type: OkResponse, description: 'sets a new svc_token cookie; every other session ends' })
  @ApiErrors(400, 401, 403, 429)
  async changePassword(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentPrincipal() principal: Principal,
    @Body() dto: ChangePasswordDto,
  ): Promise<OkResponse> {
    const session = await this.auth.changePassword(clientAddress(req), principal, dto.currentPassword, dto.newPassword);
    setSessionCookie(req, res, session.token);
    return { ok: true };
  }
}
