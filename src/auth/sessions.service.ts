import { Injectable } from '@nestjs/common';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { Clock } from '../common/clock';
import { randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { DAY_MS } from '../common/time';
import { andThen, type Sometimes } from '../common/sometimes';
import { SessionsRevokedEvent } from './events/sessions-revoked.event';
import { SessionEntity } from './session.entity';
import { SessionLookups } from './session-lookups';
import { SessionsRepository } from './sessions.repository';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

export const SESSION_TTL_MS = 7 * DAY_MS;

export interface ActiveSession {
  session: SessionEntity;
  token: string;
}

/** Server-side browser sessions: a new random token on every sign-in, revocable at once. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly clock: Clock,
    private readonly cluster: ClusterEventsBridge,
    private readonly lookups: SessionLookups,
  ) {}

  async start(userId: number, signInMethod: SignInMethod): Promise<ActiveSession> {
    const token = randomBase64Url(32);
    const now = this.clock.now();
    const session = await this.sessions.insert({
      userId,
      tokenHash: sha256Hex(token),
      signInMethod,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    });
    return { session, token };
  }

  /**
   * The live session for a cookie value, with its member (one query, reused for a few seconds), or
   * null (unknown, expired, or its member inactive). An expired row is left to the scheduled purge:
   * a request never waits on a write it does not need.
   */
  resolve(token: string): Sometimes<SessionEntity | null> {
    if (!token || token.length > 200) return null;
    // At once when the lookup is held (a dashboard's requests): no promise.
    return andThen(this.lookups.lookUp(sha256Hex(token), (hash) => this.sessions.findWithMember(hash)), (session) =>
      !session || session.expiresAt.getTime() <= this.clock.nowMs() ? null : session,
    );
  }

  async end(sessionId: number, userId: number): Promise<void> {
    await this.sessions.delete([sessionId]);
    await this.cluster.announce(SessionsRevokedEvent.eventName, new SessionsRevokedEvent(userId, [sessionId]));
  }

  /** Ends every session of a member (password change or reset, member deletion). */
  async endAllFor(userId: number): Promise<void> {
    const doomed = await this.sessions.idsOf(userId);
    if (!doomed.length) return;
    await this.sessions.delete(doomed);
    await this.cluster.announce(SessionsRevokedEvent.eventName, new SessionsRevokedEvent(userId, doomed));
  }

  async purgeExpired(): Promise<number> {
    return this.sessions.deleteExpiredAt(this.clock.now());
  }
}
