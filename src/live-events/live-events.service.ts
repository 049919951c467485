import { HttpStatus, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readSessionCookie } from '../auth/session-cookie';
import { SessionsService } from '../auth/sessions.service';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import type { Role } from '../common/auth/role';
import { HttpError, unauthorized } from '../common/errors/http-error';
import { CredentialExpiry } from '../common/net/credential-expiry';
import { leaveRequestDeadline } from '../common/net/request-deadline';
import { EventStream } from './event-stream';
import { LIVE_EVENTS, LiveEventName } from './live-events.mapper';

/** Unsent bytes one connection may queue before it is dropped (hundreds of events). */
export const MAX_BUFFERED_BYTES = 64 * 1024;
/** Comment pings keep proxies from closing the idle stream; sessions (role, existence) are re-checked at the same pace. */
export const HEARTBEAT_MS = 25_000;
/** The reconnection delay the stream asks EventSource to use. */
export const RETRY_MS = 3_000;
/**
 * Open streams one member may hold on this instance (one per dashboard tab). Each holds a TCP
 * connection for as long as it is open, so without a bound one signed-in member could fill
 * SVC_MAX_CONNECTIONS. Past it the new stream is refused rather than the oldest closed: a closed
 * EventSource reconnects within RETRY_MS, and five tabs would take turns closing each other.
 */
export const MAX_STREAMS_PER_MEMBER = 4;
export const TOO_MANY_STREAMS = `Too many live event streams open for this member (at most ${MAX_STREAMS_PER_MEMBER}): close a dashboard tab`;

export type Payload<E extends LiveEventName> = InstanceType<(typeof LIVE_EVENTS)[E]>;

export interface Subscriber {
  stream: EventStream;
  userId: number;
  sessionId: number;
  sessionToken: string;
  role: Role;
}

/**
 * GET /events: the dashboard's live stream. Every signed-in member receives the build and comment
 * events (every role may read builds and comments); a member receives their own role changes;
 * Admins also receive team changes. A stream ends when its session does (sign-out, password
 * change or reset, deletion: `sessions.revoked`; expiry: the same CredentialExpiry rule as every
 * WebSocket, within a second), and when its client stops reading (see EventStream).
 */
@Injectable()
export class LiveEventsService implements OnModuleDestroy {
  private readonly logger = new Logger('LiveEvents');
  private readonly subscribers = new Set<Subscriber>();
  private readonly heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS).unref();
  private readonly expiry: CredentialExpiry;

  constructor(
    private readonly sessions: SessionsService,
    clock: Clock,
  ) {
    this.expiry = new CredentialExpiry(() => clock.nowMs());
  }

  /** Number of open streams (tests, diagnostics). */
  get size(): number {
    return this.subscribers.size;
  }

  open(req: Request, res: Response, principal: Principal): void {
    const sessionToken = readSessionCookie(req);
    if (principal.via !== 'cookie' || principal.sessionId === null || !sessionToken) throw unauthorized();
    if (this.streamsOf(principal.userId) >= MAX_STREAMS_PER_MEMBER) throw new HttpError(HttpStatus.TOO_MANY_REQUESTS, TOO_MANY_STREAMS);
    // Long-lived by design: the request idle timer must not cut it; the heartbeat keeps it busy.
    req.socket.setTimeout(0);
    leaveRequestDeadline(req);
    req.socket.setNoDelay(true);
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no'); // nginx: pass events through as they come
    res.flushHeaders();
    const subscriber: Subscriber = {
      stream: new EventStream(res, MAX_BUFFERED_BYTES, (reason) => {
        this.subscribers.delete(subscriber);
        if (reason === 'dropped') this.logger.warn(`Dropped the event stream of member ${principal.userId}: client not reading`);
      }),
      userId: principal.userId,
      sessionId: principal.sessionId,
      sessionToken,
      role: principal.role,
    };
    this.subscribers.add(subscriber);
    subscriber.stream.writeRetry(RETRY_MS);
    this.send(subscriber, 'ready', { user_id: principal.userId, role: principal.role });
    this.expiry.watch(
      { expire: () => this.end(subscriber, 'expired'), onEnd: (listener) => subscriber.stream.onEnd(listener) },
      principal.expiresAt,
    );
  }

  /**
   * Pings every stream and re-checks its session: its role, and that it still exists (an expiry is
   * normally found sooner, by the credential sweep). Tests call it directly.
   */
  async beat(): Promise<void> {
    for (const subscriber of [...this.subscribers]) {
      if (!subscriber.stream.ping()) continue;
      try {
        const session = await this.sessions.resolve(subscriber.sessionToken);
        if (!session?.user) this.end(subscriber, 'expired');
        else this.changeRole(subscriber, session.user.role);
      } catch (err) {
        this.logger.error(`Re-checking an event stream's session failed: ${(err as Error).message}`);
      }
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.heartbeat);
    this.expiry.stop();
    for (const subscriber of [...this.subscribers]) subscriber.stream.close();
  }

  /** Ends the streams opened with these sessions (sign-out, password change or reset, deletion). */
  endSessions(sessionIds: number[]): void {
    for (const subscriber of [...this.subscribers]) {
      if (sessionIds.includes(subscriber.sessionId)) this.end(subscriber, 'signed_out');
    }
  }

  /** The member's own streams learn their new role; Admins' streams learn the team changed. */
  memberRoleChanged(userId: number, role: Role): void {
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.userId === userId) this.changeRole(subscriber, role);
    }
    this.broadcast('team.changed', { member_id: userId }, (s) => s.role === 'Admin');
  }

  /** The member's streams end; Admins' streams learn the team changed. */
  memberDeleted(userId: number): void {
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.userId === userId) this.end(subscriber, 'signed_out');
    }
    this.broadcast('team.changed', { member_id: userId }, (s) => s.role === 'Admin');
  }

  /** Sends one event to every stream (or those `to` picks). */
  broadcast<E extends LiveEventName>(name: E, data: Payload<E>, to: (s: Subscriber) => boolean = () => true): void {
    for (const subscriber of [...this.subscribers]) if (to(subscriber)) this.send(subscriber, name, data);
  }

  private streamsOf(userId: number): number {
    let count = 0;
    for (const subscriber of this.subscribers) if (subscriber.userId === userId) count++;
    return count;
  }

  private changeRole(subscriber: Subscriber, role: Role): void {
    if (subscriber.role === role) return;
    subscriber.role = role;
    this.send(subscriber, 'role.changed', { role });
  }

  private end(subscriber: Subscriber, reason: 'signed_out' | 'expired'): void {
    subscriber.stream.close({ event: 'session.ended', data: { reason } });
  }

  private send<E extends LiveEventName>(subscriber: Subscriber, name: E, data: Payload<E>): void {
    subscriber.stream.send(name, data);
  }
}
