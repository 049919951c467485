import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { Clock } from '../common/clock';
import { randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { DAY_MS } from '../common/time';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { Before } from '../database/timestamp.column';
import { credentialHolder, epochDate, JOINED_USER_COLUMNS, JoinedUserRow } from '../users/joined-user';
import { SessionsRevokedEvent } from './events/sessions-revoked.event';
import { SessionEntity } from './session.entity';

export const SESSION_TTL_MS = 7 * DAY_MS;

export interface ActiveSession {
  session: SessionEntity;
  token: string;
}

/** Server-side browser sessions: a new random token on every sign-in, revocable at once. */
@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {
    this.sql = QueryBuilder.of(sessions.manager.connection);
  }

  /** The credential lookup's builder (compile-only Kysely, docs/database.md "One dialect"). */
  private readonly sql: QueryBuilder;

  async start(userId: number, signInMethod: SignInMethod): Promise<ActiveSession> {
    const token = randomBase64Url(32);
    const now = this.clock.now();
    const session = await this.sessions.save(
      this.sessions.create({
        userId,
        tokenHash: sha256Hex(token),
        signInMethod,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
      }),
    );
    return { session, token };
  }

  /**
   * The live session for a cookie value, with its member (one query), or null (unknown, expired, or
   * its member inactive; expired rows are removed).
   */
  async resolve(token: string): Promise<SessionEntity | null> {
    if (!token || token.length > 200) return null;
    const session = await this.findWithMember(sha256Hex(token));
    if (!session) return null;
    if (session.expiresAt.getTime() <= this.clock.nowMs()) {
      await this.sessions.delete({ id: session.id });
      return null;
    }
    return session;
  }

  /**
   * The session and its member in one join, a statement prepared once: this runs on every cookie
   * request, and findOne(relations) built two queries through TypeORM's query builder each time
   * (the ids under DISTINCT, then the rows).
   */
  private async findWithMember(tokenHash: string): Promise<SessionEntity | null> {
    const statement = this.sql.prepare('sessions.withMember', (v: { tokenHash: string }) =>
      this.sql.db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['s.id', 's.user_id', 's.token_hash', 's.created_at', 's.expires_at', 's.sign_in_method', ...JOINED_USER_COLUMNS])
        .where('s.token_hash', '=', v.tokenHash),
    );
    const [row] = await statement.run<SessionWithMemberRow>(this.sessions, { tokenHash });
    const user = row ? credentialHolder(row) : null;
    if (!user) return null;
    return Object.assign(new SessionEntity(), {
      id: Number(row.id),
      userId: user.id,
      user,
      tokenHash: row.token_hash,
      createdAt: epochDate(row.created_at),
      expiresAt: epochDate(row.expires_at),
      signInMethod: row.sign_in_method,
    });
  }

  async end(sessionId: number, userId: number): Promise<void> {
    await this.sessions.delete({ id: sessionId });
    this.events.emit(SessionsRevokedEvent.eventName, new SessionsRevokedEvent(userId, [sessionId]));
  }

  /** Ends every session of a member (password change or reset, member deletion). */
  async endAllFor(userId: number): Promise<void> {
    const doomed = await this.sessions.find({ where: { userId }, select: { id: true } });
    if (!doomed.length) return;
    await this.sessions.delete({ id: In(doomed.map((s) => s.id)) });
    this.events.emit(
      SessionsRevokedEvent.eventName,
      new SessionsRevokedEvent(
        userId,
        doomed.map((s) => s.id),
      ),
    );
  }

  async purgeExpired(): Promise<number> {
    const result = await this.sessions.delete({ expiresAt: Before(this.clock.now()) });
    return result.affected ?? 0;
  }
}

/** One session row joined with its member, as the driver returns it. */
interface SessionWithMemberRow extends JoinedUserRow {
  id: number | string;
  token_hash: string;
  created_at: number | string;
  expires_at: number | string;
  sign_in_method: SignInMethod;
}
