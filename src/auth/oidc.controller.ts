import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors } from '../common/api/responses';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { CurrentPrincipal } from '../common/auth/principal.decorator';
import { notFound } from '../common/errors/http-error';
import { clientAddress } from '../common/net/relay-host';
import { RelayConfig } from '../config/relay-config';
import { sendRenderedPage } from '../dashboard/dashboard';
import { SsoRefusal } from '../identity/sso-refusal';
import { AuthService } from './auth.service';
import { canonicalLocation } from './canonical-origin';
import { OidcLogoutResponse } from './dto/auth-responses';
import { setFlowCookie, takeFlowCookie } from './oidc-flow-cookie';
import { clearSessionCookie, setSessionCookie } from './session-cookie';
import { samePath, SsoSignInService } from './sso-sign-in.service';
import { ssoRefusalPage } from './sso-page';

const HTML = { 'text/html': { schema: { type: 'string' as const } } };

/** Sign-in through the OpenID provider of `sso.oidc` (docs/identity.md); 404 while none is configured. */
@ApiTags('auth')
@Controller('auth/oidc')
export class OidcController {
  constructor(
    private readonly config: RelayConfig,
    private readonly sso: SsoSignInService,
    private readonly auth: AuthService,
  ) {}

  @Get('login')
  @Auth({ public: true })
  @ApiQuery({ name: 'next', required: false, description: 'a path on this relay to open after signing in (default /)' })
  @ApiResponse({ status: 302, description: "to the provider's authorization endpoint; first to this route on the relay's canonical origin when reached under another host" })
  @ApiResponse({ status: 502, content: HTML, description: 'a page saying the provider could not be reached' })
  @ApiErrors(404)
  async login(@Req() req: Request, @Res() res: Response, @Query('next') next?: string): Promise<void> {
    this.requireOidc();
    // Started elsewhere, the flow's cookie would be on an origin the provider never sends the browser back to.
    const elsewhere = canonicalLocation(req, this.sso.canonicalOrigin());
    if (elsewhere) return res.redirect(302, elsewhere);
    try {
      const { url, flow } = await this.sso.begin(this.origin(req), typeof next === 'string' ? next : undefined);
      setFlowCookie(req, res, flow);
      res.redirect(302, url);
    } catch (err) {
      this.refusalPage(res, err);
    }
  }

  @Get('callback')
  @Auth({ public: true })
  @ApiResponse({ status: 302, description: 'sets the svc_token cookie (7 days) and goes to `next`' })
  @ApiResponse({ status: 401, content: HTML, description: 'a page: the answer could not be verified, or the flow was not started in this browser' })
  @ApiResponse({ status: 403, content: HTML, description: 'a page: no group gives a role, or an existing member cannot be linked' })
  @ApiErrors(404)
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.requireOidc();
    const flow = takeFlowCookie(req, res);
    try {
      const params = Object.fromEntries(Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'));
      const { session, next } = await this.sso.complete(this.origin(req), params, flow, clientAddress(req));
      setSessionCookie(req, res, session.token);
      res.redirect(302, samePath(next));
    } catch (err) {
      this.refusalPage(res, err);
    }
  }

  /** RP-initiated logout: ends this session here, then the dashboard sends the browser to `redirect`. */
  @Post('logout')
  @HttpCode(200)
  @Auth({ cookie: true })
  @ApiOkResponse({ type: OidcLogoutResponse, description: "clears the cookie; `redirect` is the provider's end-session URL (null when it has none)" })
  @ApiErrors(401, 403, 404)
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response, @CurrentPrincipal() principal: Principal): Promise<OidcLogoutResponse> {
    this.requireOidc();
    await this.auth.logout(principal);
    clearSessionCookie(req, res);
    const redirect = await this.sso.logoutUrl(this.origin(req)).catch(() => null);
    return { ok: true, redirect };
  }

  private requireOidc(): void {
    if (!this.config.sso.oidc) throw notFound();
  }

  private origin(req: Request): string {
    return this.sso.origin(`${req.protocol}://${req.get('host')}`);
  }

  private refusalPage(res: Response, err: unknown): void {
    if (!(err instanceof SsoRefusal)) throw err;
    const status = err.reason === 'provider_unreachable' ? 502 : ['no_role', 'unverified_email', 'already_linked', 'no_email', 'deactivated'].includes(err.reason) ? 403 : 401;
    sendRenderedPage(res, status, (nonce) => ssoRefusalPage(err.message, nonce));
  }
}
