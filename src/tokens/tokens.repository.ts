import { Injectable } from '@nestjs/common';
import { inLists } from '../database/in-lists';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { credentialHolder, epochDate, JOINED_USER_COLUMNS, JoinedUserRow } from '../users/joined-user';
import { PersonalAccessTokenEntity } from './personal-access-token.entity';
import { SqlExecutor } from '../database/sql-executor';

const COLUMNS = ['id', 'user_id', 'name', 'scope', 'token_hash', 'created_at', 'last_used_at', 'expires_at'] as const;

/** A personal_access_tokens row as the driver returns it (bigint columns may be strings). */
interface TokenRow {
  id: number | string;
  user_id: number | string;
  name: string;
  scope: string;
  token_hash: string;
  created_at: number | string;
  last_used_at: number | string;
  expires_at: number | string | null;
}

function toToken(row: TokenRow): PersonalAccessTokenEntity {
  return Object.assign(new PersonalAccessTokenEntity(), {
    id: Number(row.id),
    userId: Number(row.user_id),
    name: row.name,
    scope: row.scope,
    tokenHash: row.token_hash,
    createdAt: epochDate(row.created_at),
    lastUsedAt: epochDate(row.last_used_at),
    expiresAt: row.expires_at == null ? null : epochDate(row.expires_at),
  });
}

/** The personal_access_tokens table (the tokens module's). Statements run on the data source's tx, as a TypeORM repository's did. */
@Injectable()
export class TokensRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async insert(token: Omit<PersonalAccessTokenEntity, 'id' | 'user'>): Promise<PersonalAccessTokenEntity> {
    const statement = this.sql.prepare('tokens.insert', (v: Record<Exclude<(typeof COLUMNS)[number], 'id'>, never>) =>
      this.sql.db
        .insertInto('personal_access_tokens')
        .values({
          user_id: v.user_id,
          name: v.name,
          scope: v.scope,
          token_hash: v.token_hash,
          created_at: v.created_at,
          last_used_at: v.last_used_at,
          expires_at: v.expires_at,
        })
        .returning(COLUMNS),
    );
    const [row] = await statement.run<TokenRow>(this.db, {
      user_id: token.userId,
      name: token.name,
      scope: token.scope,
      token_hash: token.tokenHash,
      created_at: token.createdAt.getTime(),
      last_used_at: token.lastUsedAt.getTime(),
      expires_at: token.expiresAt?.getTime() ?? null,
    } as never);
    return toToken(row);
  }

  /** A member's tokens in id order. */
  async listFor(userId: number): Promise<PersonalAccessTokenEntity[]> {
    const statement = this.sql.prepare('tokens.of', (v: { userId: number }) =>
      this.sql.db.selectFrom('personal_access_tokens').select(COLUMNS).where('user_id', '=', v.userId).orderBy('id'),
    );
    return (await statement.run<TokenRow>(this.db, { userId })).map(toToken);
  }

  async namesOf(userId: number): Promise<string[]> {
    const statement = this.sql.prepare('tokens.namesOf', (v: { userId: number }) =>
      this.sql.db.selectFrom('personal_access_tokens').select('name').where('user_id', '=', v.userId),
    );
    return (await statement.run<{ name: string }>(this.db, { userId })).map((row) => row.name);
  }

  async idsOf(userId: number): Promise<number[]> {
    const statement = this.sql.prepare('tokens.idsOf', (v: { userId: number }) =>
      this.sql.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', v.userId),
    );
    return (await statement.run<{ id: number | string }>(this.db, { userId })).map((row) => Number(row.id));
  }

  /** Deletes the member's token; false when they hold none of this id. */
  async deleteOwned(id: number, userId: number): Promise<boolean> {
    const statement = this.sql.prepare('tokens.deleteOwned', (v: { id: number; userId: number }) =>
      this.sql.db.deleteFrom('personal_access_tokens').where('id', '=', v.id).where('user_id', '=', v.userId).returning('id'),
    );
    return (await statement.run(this.db, { id, userId })).length > 0;
  }

  async delete(ids: number[]): Promise<void> {
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`tokens.delete ${list.length}`, (v: number[]) =>
        this.sql.db.deleteFrom('personal_access_tokens').where(
          'id',
          'in',
          list.map((_, i) => v[i]),
        ),
      );
      await statement.run(this.db, list);
    }
  }

  /**
   * The token and its owner in one join, a statement prepared once: this runs on every PAT
   * request, and TypeORM's query builder behind findOne(relations) cost several times the query
   * itself. Null when there is none or its owner may not sign in.
   */
  async findWithOwner(hash: string): Promise<PersonalAccessTokenEntity | null> {
    const statement = this.sql.prepare('tokens.withOwner', (v: { hash: string }) =>
      this.sql.db
        .selectFrom('personal_access_tokens as t')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select(['t.id', 't.user_id', 't.name', 't.scope', 't.token_hash', 't.created_at', 't.last_used_at', 't.expires_at', ...JOINED_USER_COLUMNS])
        .where('t.token_hash', '=', v.hash),
    );
    const [row] = await statement.run<TokenRow & JoinedUserRow>(this.db, { hash });
    const user = row ? credentialHolder(row) : null;
    return user ? Object.assign(toToken(row), { user }) : null;
  }

  /**
   * Stores recorded uses (TokenLastUse's flush), one statement per IN_LIST_MAX tokens. A token
   * revoked meanwhile has no row left to update.
   */
  async setLastUsed(uses: readonly { id: number; at: number }[]): Promise<void> {
    for (const list of inLists(uses)) {
      const statement = this.sql.prepare(`tokens.lastUsed ${list.length}`, (v: Record<string, number>) =>
        this.sql.db
          .updateTable('personal_access_tokens')
          .set((eb) => {
            let cases = eb.case().when('id', '=', v.id0).then(v.at0);
            for (let i = 1; i < list.length; i++) cases = cases.when('id', '=', v[`id${i}`]).then(v[`at${i}`]);
            return { last_used_at: cases.else(eb.ref('last_used_at')).end() };
          })
          .where(
            'id',
            'in',
            list.map((_, i) => v[`id${i}`]),
          ),
      );
      await statement.run(this.db, Object.fromEntries(list.flatMap((use, i) => [[`id${i}`, use.id], [`at${i}`, use.at]])));
    }
  }
}
