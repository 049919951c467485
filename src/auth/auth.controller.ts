import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import type { Role } from '../common/auth/role';
import { ErrorMessages } from '../common/errors/error-messages';
import { forbidden, unauthorized } from '../common/errors/relay-exception';
import { clientAddress, isRelayHostRequest } from '../common/net/relay-host';
import { MeResponse, toMeResponse } from '../users/users.mapper';
import { UsersService } from '../users/users.service';
import { AuthService } from './auth.service';
import { ChangePasswordDto, InitDto, LoginDto } from './dto/credentials.dto';
import { clearSessionCookie, setSessionCookie } from './session-cookie';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
  ) {}

  @Get('status')
  @Auth({ public: true })
  status(@Req() req: Request): Promise<{ initialized: boolean; canInitialize: boolean }> {
    return this.auth.status(isRelayHostRequest(req));
  }

  @Post('init')
  @HttpCode(201)
  @Auth({ public: true })
  async init(@Req() req: Request, @Body() dto: InitDto): Promise<{ ok: true }> {
    const { initialized } = await this.auth.status(true);
    if (initialized) throw forbidden(ErrorMessages.alreadyInitialized);
    if (!isRelayHostRequest(req)) throw forbidden(ErrorMessages.initNotFromHost);
    await this.auth.initialize(dto.email, dto.password);
    return { ok: true };
  }

  @Post('login')
  @HttpCode(200)
  @Auth({ public: true })
  async login(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() dto: LoginDto,
  ): Promise<{ ok: true; role: Role }> {
    const { role, session } = await this.auth.login(clientAddress(req), dto.email, dto.password);
    setSessionCookie(req, res, session.token);
    return { ok: true, role };
  }

  @Post('logout')
  @HttpCode(200)
  @Auth({ cookie: true })
  async logout(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ ok: true }> {
    await this.auth.logout(principal);
    clearSessionCookie(req, res);
    return { ok: true };
  }

  @Get('me')
  @Auth({ cookie: true })
  async me(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    const user = await this.users.findById(principal.userId);
    if (!user) throw unauthorized();
    return toMeResponse(user);
  }

  @Post('change-password')
  @HttpCode(200)
  @Auth({ cookie: true })
  async changePassword(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentPrincipal() principal: Principal,
    @Body() dto: ChangePasswordDto,
  ): Promise<{ ok: true }> {
    const session = await this.auth.changePassword(principal, dto.currentPassword, dto.newPassword);
    setSessionCookie(req, res, session.token);
    return { ok: true };
  }
}
