import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from '../users/joined-user';
import { PasswordResetEntity } from './password-reset.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

interface ResetRow {
  id: number | string;
  user_id: number | string;
  token_hash: string;
  created_at: number | string;
  expires_at: number | string;
  used_at: number | string | null;
}

/** The password_resets table (the password-reset module's). Without `tx`, on the data source's, as a TypeORM repository's did. */
@Injectable()
export class PasswordResetRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(reset: Omit<PasswordResetEntity, 'id'>, tx: Sql): Promise<void> {
    const statement = this.sql.prepare('passwordResets.insert', (v: { userId: number; tokenHash: string; createdAt: number; expiresAt: number; usedAt: number | null }) =>
      this.sql.db
        .insertInto('password_resets')
        .values({ user_id: v.userId, token_hash: v.tokenHash, created_at: v.createdAt, expires_at: v.expiresAt, used_at: v.usedAt }),
    );
    await statement.run(tx, {
      userId: reset.userId,
      tokenHash: reset.tokenHash,
      createdAt: reset.createdAt.getTime(),
      expiresAt: reset.expiresAt.getTime(),
      usedAt: reset.usedAt?.getTime() ?? null,
    });
  }

  async findByHash(tokenHash: string): Promise<PasswordResetEntity | null> {
    const statement = this.sql.prepare('passwordResets.byHash', (v: { tokenHash: string }) =>
      this.sql.db.selectFrom('password_resets').select(['id', 'user_id', 'token_hash', 'created_at', 'expires_at', 'used_at']).where('token_hash', '=', v.tokenHash),
    );
    const [row] = await statement.run<ResetRow>(this.db, { tokenHash });
    if (!row) return null;
    return Object.assign(new PasswordResetEntity(), {
      id: Number(row.id),
      userId: Number(row.user_id),
      tokenHash: row.token_hash,
      createdAt: epochDate(row.created_at),
      expiresAt: epochDate(row.expires_at),
      usedAt: row.used_at == null ? null : epochDate(row.used_at),
    });
  }

  async deleteOf(userId: number, tx: Sql = this.db): Promise<void> {
    const statement = this.sql.prepare('passwordResets.deleteOf', (v: { userId: number }) => this.sql.db.deleteFrom('password_resets').where('user_id', '=', v.userId));
    await statement.run(tx, { userId });
  }

  /** Marks the link used at `now` unless it was used or expired meanwhile: true when this call used it. */
  async claim(id: number, now: Date): Promise<boolean> {
    const statement = this.sql.prepare('passwordResets.claim', (v: { id: number; now: number }) =>
      this.sql.db
        .updateTable('password_resets')
        .set({ used_at: v.now })
        .where('id', '=', v.id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', v.now)
        .returning('id'),
    );
    return (await statement.run(this.db, { id, now: now.getTime() })).length > 0;
  }

  /** Deletes the links used or expired at `now`; how many. */
  async deleteStale(now: Date): Promise<number> {
    const statement = this.sql.prepare('passwordResets.deleteStale', (v: { now: number }) =>
      this.sql.db
        .deleteFrom('password_resets')
        .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', v.now)]))
        .returning('id'),
    );
    return (await statement.run(this.db, { now: now.getTime() })).length;
  }
}
