import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CredentialCache } from '../common/auth/credential-cache';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { Clock } from '../common/clock';
import { randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { DAY_MS } from '../common/time';
import { MemberChangedEvent } from '../users/events/member-changed.event';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import { SessionsRevokedEvent } from './events/sessions-revoked.event';
import { SessionEntity } from './session.entity';
import { SessionsRepository } from './sessions.repository';

export const SESSION_TTL_MS = 7 * DAY_MS;

export interface ActiveSession {
  session: SessionEntity;
  token: string;
}

/** Server-side browser sessions: a new random token on every sign-in, revocable at once. */
@Injectable()
export class SessionsService {
  /** Sessions with their member by hash: the lookup of every cookie request, reused for a few seconds. */
  private readonly lookups = new CredentialCache<SessionEntity>();

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
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
  async resolve(token: string): Promise<SessionEntity | null> {
    if (!token || token.length > 200) return null;
    const session = await this.lookUp(sha256Hex(token));
    if (!session || session.expiresAt.getTime() <= this.clock.nowMs()) return null;
    return session;
  }

  private async lookUp(hash: string): Promise<SessionEntity | null> {
    const cached = this.lookups.get(hash);
    if (cached) return cached;
    const generation = this.lookups.generation;
    const session = await this.sessions.findWithMember(hash);
    if (session) this.lookups.set(hash, session, { userId: session.userId, credentialId: session.id }, generation);
    return session;
  }

  async end(sessionId: number, userId: number): Promise<void> {
    await this.sessions.delete([sessionId]);
    this.events.emit(SessionsRevokedEvent.eventName, new SessionsRevokedEvent(userId, [sessionId]));
  }

  /** Ends every session of a member (password change or reset, member deletion). */
  async endAllFor(userId: number): Promise<void> {
    const doomed = await this.sessions.idsOf(userId);
    if (!doomed.length) return;
    await this.sessions.delete(doomed);
    this.events.emit(SessionsRevokedEvent.eventName, new SessionsRevokedEvent(userId, doomed));
  }

  async purgeExpired(): Promise<number> {
    return this.sessions.deleteExpiredBefore(this.clock.now());
  }

  // Sign-out is instant on every instance: the events that close a session's sockets forget its lookup.
  @OnEventOnEveryInstance(SessionsRevokedEvent.eventName)
  onSessionsRevoked(event: Pick<SessionsRevokedEvent, 'sessionIds'>): void {
    this.lookups.clearCredentials(event.sessionIds);
  }

  @OnEventOnEveryInstance(MemberChangedEvent.eventName)
  onMembersChanged(event: Pick<MemberChangedEvent, 'userIds'>): void {
    this.lookups.clearMembers(event.userIds);
  }

  @OnEventOnEveryInstance(MemberRoleChangedEvent.eventName)
  onRoleChanged(event: Pick<MemberRoleChangedEvent, 'userId'>): void {
    this.lookups.clearMembers([event.userId]);
  }

  @OnEventOnEveryInstance(MemberDeletedEvent.eventName)
  onMemberDeleted(event: Pick<MemberDeletedEvent, 'userId'>): void {
    this.lookups.clearMembers([event.userId]);
  }
}
