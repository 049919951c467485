import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Principal } from '../common/auth/principal';
import { DEFAULT_PAT_SCOPES, Scope, isScope } from '../common/auth/scope';
import { Clock } from '../common/clock';
import { constantTimeEqual, randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { badRequest, forbidden, notFound } from '../common/errors/http-error';
import { DAY_MS, MINUTE_MS } from '../common/time';
import { andThen, type Sometimes } from '../common/sometimes';
import type { UserEntity } from '../users/user.entity';
import { TokensRevokedEvent } from './events/tokens-revoked.event';
import { PersonalAccessTokenEntity } from './personal-access-token.entity';
import { TokenLastUse } from './token-last-use';
import { TokenLookups } from './token-lookups';
import { TokensRepository } from './tokens.repository';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

export const PAT_PREFIX = 'svc_pat_';
export const TOKEN_NOT_FOUND = 'Token not found';
/** CreateTokenDto's limit on `name`. */
export const TOKEN_NAME_MAX = 200;
/** Largest time a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

export interface VerifiedToken {
  token: PersonalAccessTokenEntity;
  user: UserEntity;
  scopes: Scope[];
}

/** Personal access tokens: issue, list, revoke, and verify on each request. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly lastUse: TokenLastUse,
    private readonly lookups: TokenLookups,
    private readonly cluster: ClusterEventsBridge,
  ) {}

  async issue(
    principal: Principal,
    input: { name: string; expiresInDays?: unknown; scope?: unknown },
  ): Promise<{ token: string; entity: PersonalAccessTokenEntity }> {
    const scopes = parseScopes(input.scope);
    if (scopes.includes('agent') && principal.role !== 'Admin') {
      throw forbidden('Only an Admin can issue the agent scope');
    }
    if (scopes.includes('devices') && principal.role === 'Viewer') {
      throw forbidden('Viewers cannot hold the devices scope');
    }
    const now = this.clock.now();
    const expiresAt = expiryFrom(now, input.expiresInDays);
    const token = PAT_PREFIX + randomBase64Url(32);
    const name = unusedName(input.name, new Set(await this.tokens.namesOf(principal.userId)));
    const entity = await this.tokens.insert({
      userId: principal.userId,
      name,
      scope: scopes.join(','),
      tokenHash: sha256Hex(token),
      createdAt: now,
      lastUsedAt: now,
      expiresAt,
    });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'token.created', `token:${entity.id}`, { name: entity.name, scope: entity.scope }));
    return { token, entity };
  }

  /** With the uses this instance recorded and has not stored yet. */
  async listFor(userId: number): Promise<PersonalAccessTokenEntity[]> {
    const tokens = await this.tokens.listFor(userId);
    for (const token of tokens) token.lastUsedAt = this.lastUse.unstored(token.id) ?? token.lastUsedAt;
    return tokens;
  }

  /** Revokes one of the caller's tokens; another member's token id is 404, never 204. */
  async revoke(principal: Principal, tokenId: number): Promise<void> {
    const userId = principal.userId;
    if (!(await this.tokens.deleteOwned(tokenId, userId))) throw notFound(TOKEN_NOT_FOUND);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'token.revoked', `token:${tokenId}`));
    await this.cluster.announce(TokensRevokedEvent.eventName, new TokensRevokedEvent(userId, [tokenId], 'revoked'));
  }

  /**
   * Revokes every token of a member. Deletes exactly the ids it read, and reads again until none
   * are left, so a token issued meanwhile is revoked too and every revoked id is in the event
   * (agents using it are closed).
   */
  async revokeAllFor(userId: number, reason: TokensRevokedEvent['reason']): Promise<void> {
    const revoked: number[] = [];
    for (;;) {
      const ids = await this.tokens.idsOf(userId);
      if (!ids.length) break;
      await this.tokens.delete(ids);
      revoked.push(...ids);
    }
    if (revoked.length) await this.cluster.announce(TokensRevokedEvent.eventName, new TokensRevokedEvent(userId, revoked, reason));
  }

  /**
   * The token's row and owner when it is valid now (unexpired, its owner active), else null.
   * Records use (the first always, then at most once a minute), written later by TokenLastUse.
   */
  verify(raw: string): Sometimes<VerifiedToken | null> {
    if (!raw.startsWith(PAT_PREFIX) || raw.length < PAT_PREFIX.length + 32 || raw.length > 200) return null;
    const hash = sha256Hex(raw);
    // At once when the lookup is held (most requests of a CI job or script): no promise.
    return andThen(this.lookups.lookUp(hash, (key) => this.tokens.findWithOwner(key)), (token) => this.validNow(token, hash));
  }

  private validNow(token: PersonalAccessTokenEntity | null, hash: string): VerifiedToken | null {
    if (!token || !token.user || !constantTimeEqual(token.tokenHash, hash)) return null;
    const now = this.clock.now();
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) return null;
    const lastUsedAt = this.lastUse.unstored(token.id) ?? token.lastUsedAt;
    const firstUse = lastUsedAt.getTime() === token.createdAt.getTime();
    if (firstUse || now.getTime() - lastUsedAt.getTime() >= MINUTE_MS) {
      this.lastUse.record(token.id, now);
      token.lastUsedAt = now;
    }
    return { token, user: token.user, scopes: token.scope.split(',') as Scope[] };
  }
}

/**
 * A member's tokens are told apart by name in the dashboard's list and the audit log, and POST
 * /tokens documents 201 only: so a name the member already uses is numbered ("CI (2)"), never
 * refused. Shortened to stay within the 200 characters the name allows.
 */
export function unusedName(name: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = name.slice(0, TOKEN_NAME_MAX - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** `expires_in_days`: a number ≥ 0 or a numeric string; 0 or absent = never; too far to be a date = 400. */
export function expiryFrom(now: Date, value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  const days =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== '' && /^[0-9.eE+]+$/.test(value.trim())
        ? Number(value.trim())
        : NaN;
  if (!Number.isFinite(days) || days < 0) {
    throw badRequest('expires_in_days must be a number of days >= 0 (0 or omitted = no expiry)');
  }
  if (days === 0) return null;
  const at = now.getTime() + days * DAY_MS;
  if (!Number.isFinite(at) || at > MAX_DATE_MS) throw badRequest('expires_in_days is too large to be a date');
  return new Date(at);
}

/** Comma-separated scopes; duplicates collapse; unknown scopes are 400. */
export function parseScopes(value: unknown): Scope[] {
  if (value === undefined || value === null) return [...DEFAULT_PAT_SCOPES];
  if (typeof value !== 'string') throw badRequest('scope must be a comma-separated string');
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.length) throw badRequest('scope must name at least one of view, builds:write, agent, devices');
  const unknown = parts.find((p) => !isScope(p));
  if (unknown) throw badRequest(`Unknown scope "${unknown}" (allowed: view, builds:write, agent, devices)`);
  return [...new Set(parts)] as Scope[];
}
