import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { constantTimeEqual, randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { notFound } from '../common/errors/http-error';
import { MINUTE_MS } from '../common/time';
import { ScimTokenEntity } from './scim-token.entity';
import { ScimTokensRepository } from './scim-tokens.repository';

export const SCIM_TOKEN_PREFIX = 'svc_scim_';

/** SCIM bearer tokens: issued and revoked by Admins, checked on every /scim/v2 request. */
@Injectable()
export class ScimTokensService {
  constructor(
    private readonly tokens: ScimTokensRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  list(): Promise<ScimTokenEntity[]> {
    return this.tokens.list();
  }

  async issue(actor: Principal, name: string): Promise<{ token: string; entity: ScimTokenEntity }> {
    const token = SCIM_TOKEN_PREFIX + randomBase64Url(32);
    const entity = await this.tokens.insert({ name, tokenHash: sha256Hex(token), createdById: actor.userId, createdAt: this.clock.now(), lastUsedAt: null });
    this.audit('scim.token_created', actor, entity);
    return { token, entity };
  }

  async revoke(actor: Principal, id: number): Promise<void> {
    const entity = await this.tokens.findById(id);
    if (!entity) throw notFound('SCIM token not found');
    await this.tokens.delete(id);
    this.audit('scim.token_revoked', actor, entity);
  }

  /** The token row for a presented value, or null; last use is written at most once a minute. */
  async verify(raw: string): Promise<ScimTokenEntity | null> {
    if (!raw.startsWith(SCIM_TOKEN_PREFIX) || raw.length > 200) return null;
    const hash = sha256Hex(raw);
    const token = await this.tokens.findByHash(hash);
    if (!token || !constantTimeEqual(token.tokenHash, hash)) return null;
    const now = this.clock.now();
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= MINUTE_MS) {
      await this.tokens.setLastUsed(token.id, now);
      token.lastUsedAt = now;
    }
    return token;
  }

  private audit(action: string, actor: Principal, entity: ScimTokenEntity): void {
    this.events.emit(AUDIT_EVENT, new AuditEvent(action, actor.userId, actor.email, actor.via, `scim_token:${entity.id}`, null, { name: entity.name }));
  }
}
