import { Injectable } from '@nestjs/common';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { inLists } from '../database/in-lists';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { credentialHolder, epochDate, JOINED_USER_COLUMNS, JoinedUserRow } from '../users/joined-user';
import { SessionEntity } from './session.entity';
import { SqlExecutor } from '../database/sql-executor';

/** One session row joined with its member, as the driver returns it. */
interface SessionWithMemberRow extends JoinedUserRow {
  id: number | string;
  token_hash: string;
  created_at: number | string;
  expires_at: number | string;
  sign_in_method: SignInMethod;
}

/** The sessions table (the auth module's). Statements run on the data source's tx, as a TypeORM repository's did. */
@Injectable()
export class SessionsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(session: Omit<SessionEntity, 'id' | 'user'>): Promise<SessionEntity> {
    const statement = this.sql.prepare('sessions.insert', (v: { userId: number; tokenHash: string; createdAt: number; expiresAt: number; signInMethod: SignInMethod }) =>
      this.sql.db
        .insertInto('sessions')
        .values({ user_id: v.userId, token_hash: v.tokenHash, created_at: v.createdAt, expires_at: v.expiresAt, sign_in_method: v.signInMethod })
        .returning('id'),
    );
    const [row] = await statement.run<{ id: number | string }>(this.db, {
      ...session,
      createdAt: session.createdAt.getTime(),
      expiresAt: session.expiresAt.getTime(),
    });
    return Object.assign(new SessionEntity(), { ...session, id: Number(row.id) });
  }

  /**
   * The session and its member in one join, a statement prepared once: this runs on every cookie
   * request, and findOne(relations) built two queries through TypeORM's query builder each time
   * (the ids under DISTINCT, then the rows). Null when there is none or its member may not sign in.
   */
  async findWithMember(tokenHash: string): Promise<SessionEntity | null> {
    const statement = this.sql.prepare('sessions.withMember', (v: { tokenHash: string }) =>
      this.sql.db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['s.id', 's.user_id', 's.token_hash', 's.created_at', 's.expires_at', 's.sign_in_method', ...JOINED_USER_COLUMNS])
        .where('s.token_hash', '=', v.tokenHash),
    );
    const [row] = await statement.run<SessionWithMemberRow>(this.db, { tokenHash });
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

  async idsOf(userId: number): Promise<number[]> {
    const statement = this.sql.prepare('sessions.idsOf', (v: { userId: number }) => this.sql.db.selectFrom('sessions').select('id').where('user_id', '=', v.userId));
    return (await statement.run<{ id: number | string }>(this.db, { userId })).map((row) => Number(row.id));
  }

  async delete(ids: number[]): Promise<void> {
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`sessions.delete ${list.length}`, (v: number[]) =>
        this.sql.db.deleteFrom('sessions').where(
          'id',
          'in',
          list.map((_, i) => v[i]),
        ),
      );
      await statement.run(this.db, list);
    }
  }

  /** Deletes the sessions expired at `now` (as resolve() sees them: expires_at <= now); returns how many. */
  async deleteExpiredAt(now: Date): Promise<number> {
    const statement = this.sql.prepare('sessions.deleteExpired', (v: { now: number }) => this.sql.db.deleteFrom('sessions').where('expires_at', '<=', v.now).returning('id'));
    return (await statement.run(this.db, { now: now.getTime() })).length;
  }
}
