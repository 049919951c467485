import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AccessRequirement } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { WRITER_ROLES } from '../common/auth/role';
import type { Scope } from '../common/auth/scope';
import { ErrorMessages } from '../common/errors/error-messages';
import { forbidden, unauthorized } from '../common/errors/relay-exception';
import { isCrossSiteWrite } from '../common/net/same-origin';
import { isRelayHostRequest } from '../common/net/relay-host';
import { RelayConfig } from '../config/relay-config';
import { TokensService } from '../tokens/tokens.service';
import { UsersService } from '../users/users.service';
import { readSessionCookie } from './session-cookie';
import { SessionsService } from './sessions.service';

/**
 * All credential policy in one place: cookie, then PAT; scope; the member's current role read on
 * every request; relay-host restriction; cross-site write refusal for cookie callers.
 */
@Injectable()
export class AuthenticatorService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly users: UsersService,
    private readonly config: RelayConfig,
  ) {}

  async authenticate(req: Request, requirement: AccessRequirement): Promise<Principal | undefined> {
    if (requirement.hostOnly && !isRelayHostRequest(req)) throw forbidden(requirement.hostOnly);
    if (requirement.public) {
      this.refuseCrossSite(req);
      return undefined;
    }
    const principal = (await this.fromCookie(req, requirement)) ?? (await this.fromToken(req, requirement));
    if (!principal) throw unauthorized();
    if (requirement.roles && !requirement.roles.includes(principal.role)) {
      const writeRoute = WRITER_ROLES.every((role) => requirement.roles!.includes(role));
      throw forbidden(principal.role === 'Viewer' && writeRoute ? ErrorMessages.viewerReadOnly : ErrorMessages.forbidden);
    }
    return principal;
  }

  /** Resolves a cookie, with the live role; used by WebSocket upgrades as well. */
  async principalFromSessionToken(token: string): Promise<Principal | null> {
    const session = await this.sessions.resolve(token);
    if (!session) return null;
    const user = await this.users.findById(session.userId);
    if (!user) return null;
    return {
      userId: user.id,
      email: user.email,
      displayName: user.displayName,
      role: user.role,
      via: 'cookie',
      sessionId: session.id,
      tokenId: null,
      scopes: [],
    };
  }

  /** Resolves a bearer PAT, with the live role; used by WebSocket upgrades as well. */
  async principalFromPat(raw: string): Promise<Principal | null> {
    const verified = await this.tokens.verify(raw);
    if (!verified) return null;
    const { user, token, scopes } = verified;
    return {
      userId: user.id,
      email: user.email,
      displayName: user.displayName,
      role: user.role,
      via: 'pat',
      sessionId: null,
      tokenId: token.id,
      tokenExpiresAt: token.expiresAt,
      scopes,
    };
  }

  private async fromCookie(req: Request, requirement: AccessRequirement): Promise<Principal | null> {
    if (requirement.cookie === false) return null;
    const token = readSessionCookie(req);
    if (!token) return null;
    const principal = await this.principalFromSessionToken(token);
    if (principal) this.refuseCrossSite(req);
    return principal;
  }

  private async fromToken(req: Request, requirement: AccessRequirement): Promise<Principal | null> {
    const raw = bearerToken(req);
    if (!raw) return null;
    // A PAT on a cookie-only endpoint is not a credential there: 401, as if absent.
    if (!requirement.pat) return null;
    const principal = await this.principalFromPat(raw);
    if (!principal) return null;
    const accepted: Scope[] = Array.isArray(requirement.pat) ? requirement.pat : [requirement.pat];
    if (!accepted.some((scope) => principal.scopes.includes(scope))) throw forbidden(ErrorMessages.insufficientScope);
    return principal;
  }

  private refuseCrossSite(req: Request): void {
    if (isCrossSiteWrite(req, [this.config.relayUrl, this.config.tunnelUrl])) {
      throw forbidden(ErrorMessages.crossSite);
    }
  }
}

/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(req: Pick<Request, 'headers'>): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}
