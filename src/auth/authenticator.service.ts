import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { AccessRequirement } from '../common/auth/auth.decorator';
import { MCP_USER_AGENT, type Principal } from '../common/auth/principal';
import { WRITER_ROLES } from '../common/auth/role';
import type { Scope } from '../common/auth/scope';
import { ErrorMessages } from '../common/errors/error-messages';
import { forbidden, unauthorized } from '../common/errors/http-error';
import { clientAddress, isRelayHostRequest } from '../common/net/relay-host';
import { andThen, type Sometimes } from '../common/sometimes';
import type { Request } from 'express';
import { trustProxyOf } from '../platform/express/trust-proxy';
import { isCrossSiteRequest } from '../common/net/same-origin';
import { RelayConfig } from '../config/relay-config';
import { TunnelUrl } from '../config/tunnel-url';
import { ScimTokensService } from '../tokens/scim-tokens.service';
import { TokensService } from '../tokens/tokens.service';
import type { Role } from '../common/auth/role';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { TwoFactorMessages, TwoFactorService } from '../two-factor/two-factor.service';
import { readSessionCookie } from './session-cookie';
import { SessionsService } from './sessions.service';

/**
 * All credential policy in one place, for HTTP routes and WebSocket upgrades alike (the global
 * AuthGuard and UpgradeRoutingWsAdapter both call `authenticate` with the handler's or gateway's @Auth):
 * relay-host restriction; cookie, then PAT; scope; the member's current role read with the
 * credential (one query per credential, held a few seconds until an event says it changed:
 * SessionLookups, TokenLookups); the one Origin rule for cookie callers.
 */
@Injectable()
export class AuthenticatorService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly scimTokens: ScimTokensService,
    private readonly config: RelayConfig,
    private readonly tunnelUrl: TunnelUrl,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /**
   * The two-factor policy holds this member's session at enrolment. A session the identity provider
   * signed in is exempt (its factors are the provider's); a password session never is, whoever the
   * member is linked to (issue 36; docs/identity.md "Links and the two-factor policy").
   */
  mustEnrolSecondFactor(user: { id: number; role: Role }, signInMethod: SignInMethod): Sometimes<boolean> {
    // Named methods only: anything else a row might hold counts as a password (fail closed).
    const providerSignIn = signInMethod === 'oidc' || signInMethod === 'ldap';
    return !providerSignIn && this.twoFactor.mustEnrol(user.id, user.role);
  }

  /**
   * The caller, or a HttpError (401/403) saying why not; undefined on public routes. At once, with
   * no promise, when the credential's lookup is held (most requests); a refusal may then be thrown
   * at once too, so a caller that needs a promise calls it from an async function.
   */
  authenticate(req: IncomingMessage, requirement: AccessRequirement): Sometimes<Principal | undefined> {
    if (requirement.hostOnly && !this.isFromRelayHost(req)) throw forbidden(requirement.hostOnly);
    if (requirement.public) {
      this.refuseCrossSite(req);
      return undefined;
    }
    if (requirement.scim) return this.fromScimToken(req);
    const principal = andThen(this.fromCookie(req, requirement), (cookie) => cookie ?? this.fromToken(req, requirement));
    return andThen(principal, (found) => this.admitted(found, requirement));
  }

  /** The caller found, held to the route's roles. */
  private admitted(principal: Principal | null, requirement: AccessRequirement): Principal {
    if (!principal) throw unauthorized();
    if (requirement.roles && !requirement.roles.includes(principal.role)) {
      const writeRoute = WRITER_ROLES.every((role) => requirement.roles!.includes(role));
      throw forbidden(
        requirement.roleRefusal ??
          (principal.role === 'Viewer' && writeRoute ? ErrorMessages.viewerReadOnly : ErrorMessages.forbidden),
      );
    }
    return principal;
  }

  /**
   * The member this browser's session cookie belongs to, or null (no cookie, or an ended session):
   * for the signed-out-or-not probe, which must answer 200 either way.
   */
  async signedInMember(req: IncomingMessage): Promise<Principal | null> {
    return this.fromCookie(req, { cookie: true, beforeSecondFactor: true });
  }

  /** The relay-host rule (docs/auth.md): own TCP peer, own forwarded hops, a Host naming this machine. */
  isFromRelayHost(req: IncomingMessage): boolean {
    return isRelayHostRequest(req, this.knownUrls(), trustProxyOf(req));
  }

  private fromCookie(req: IncomingMessage, requirement: AccessRequirement): Sometimes<Principal | null> {
    if (requirement.cookie === false) return null;
    const token = readSessionCookie(req);
    if (!token) return null;
    return andThen(this.sessions.resolve(token), (session) => {
      if (!session?.user) return null;
      this.refuseCrossSite(req);
      const { user } = session;
      const principal: Principal = {
        userId: user.id,
        email: user.email,
        displayName: user.displayName,
        role: user.role,
        via: 'cookie',
        sessionId: session.id,
        signInMethod: session.signInMethod,
        tokenId: null,
        expiresAt: session.expiresAt,
        scopes: [],
        ...callerOf(req, false),
      };
      if (requirement.beforeSecondFactor) return principal;
      // The team requires a second factor of this member and they have none: only enrolment is open.
      return andThen(this.mustEnrolSecondFactor(user, session.signInMethod), (mustEnrol) => {
        if (mustEnrol) throw forbidden(TwoFactorMessages.enrolmentRequired);
        return principal;
      });
    });
  }

  private fromToken(req: IncomingMessage, requirement: AccessRequirement): Sometimes<Principal | null> {
    const raw = bearerToken(req) ?? (requirement.basic ? basicPassword(req) : null);
    if (!raw) return null;
    // A PAT on a cookie-only endpoint is not a credential there: 401, as if absent.
    const { pat } = requirement;
    if (!pat) return null;
    return andThen(this.tokens.verify(raw), (verified) => {
      if (!verified) return null;
      const { user, token, scopes } = verified;
      const accepted: Scope[] = Array.isArray(pat) ? pat : [pat];
      if (!accepted.some((scope) => scopes.includes(scope))) throw forbidden(ErrorMessages.insufficientScope);
      return {
        userId: user.id,
        email: user.email,
        displayName: user.displayName,
        role: user.role,
        via: 'pat',
        sessionId: null,
        tokenId: token.id,
        expiresAt: token.expiresAt,
        scopes,
        ...callerOf(req, true),
      };
    });
  }

  /** An identity provider's SCIM token: the only credential of /scim/v2. */
  private async fromScimToken(req: IncomingMessage): Promise<Principal> {
    const raw = bearerToken(req);
    const token = raw ? await this.scimTokens.verify(raw) : null;
    if (!token) throw unauthorized();
    return {
      userId: 0,
      email: `scim:${token.name}`,
      displayName: token.name,
      role: 'Admin',
      via: 'scim',
      sessionId: null,
      tokenId: token.id,
      expiresAt: null,
      scopes: [],
      ...callerOf(req, false),
    };
  }

  private refuseCrossSite(req: IncomingMessage): void {
    if (isCrossSiteRequest(req, this.knownUrls())) throw forbidden(ErrorMessages.crossSite);
  }

  /** The relay's own public URLs: read on each call, since the tunnel URL can change while running. */
  private knownUrls(): (string | null)[] {
    return [this.config.relayUrl, this.tunnelUrl.current()];
  }
}

/** Where the request came from, for the audit log; only a PAT call can be the relay's MCP tools. */
function callerOf(req: IncomingMessage, pat: boolean): Pick<Principal, 'clientAddress' | 'viaMcp'> {
  return { clientAddress: clientAddress(req as Request), viaMcp: pat && req.headers['user-agent'] === MCP_USER_AGENT };
}

/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/** The password of `Authorization: Basic base64(user:password)` (RFC 7617), or null. */
export function basicPassword(req: Pick<IncomingMessage, 'headers'>): string | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}
