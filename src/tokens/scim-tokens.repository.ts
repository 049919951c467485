import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from '../users/joined-user';
import { ScimTokenEntity } from './scim-token.entity';
import { SqlExecutor } from '../database/sql-executor';

const COLUMNS = ['id', 'name', 'token_hash', 'created_by_id', 'created_at', 'last_used_at'] as const;

/** A scim_tokens row as the driver returns it (bigint columns may be strings). */
interface ScimTokenRow {
  id: number | string;
  name: string;
  token_hash: string;
  created_by_id: number | string | null;
  created_at: number | string;
  last_used_at: number | string | null;
}

function toScimToken(row: ScimTokenRow): ScimTokenEntity {
  return Object.assign(new ScimTokenEntity(), {
    id: Number(row.id),
    name: row.name,
    tokenHash: row.token_hash,
    createdById: row.created_by_id == null ? null : Number(row.created_by_id),
    createdAt: epochDate(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : epochDate(row.last_used_at),
  });
}

/** The scim_tokens table (the tokens module's). Statements run on the data source's tx, as a TypeORM repository's did. */
@Injectable()
export class ScimTokensRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** In id order. */
  async list(): Promise<ScimTokenEntity[]> {
    const statement = this.sql.prepare('scimTokens.all', () => this.sql.db.selectFrom('scim_tokens').select(COLUMNS).orderBy('id'));
    return (await statement.run<ScimTokenRow>(this.db, {})).map(toScimToken);
  }

  async insert(token: Omit<ScimTokenEntity, 'id'>): Promise<ScimTokenEntity> {
    const statement = this.sql.prepare('scimTokens.insert', (v: Record<Exclude<(typeof COLUMNS)[number], 'id'>, never>) =>
      this.sql.db
        .insertInto('scim_tokens')
        .values({ name: v.name, token_hash: v.token_hash, created_by_id: v.created_by_id, created_at: v.created_at, last_used_at: v.last_used_at })
        .returning(COLUMNS),
    );
    const [row] = await statement.run<ScimTokenRow>(this.db, {
      name: token.name,
      token_hash: token.tokenHash,
      created_by_id: token.createdById,
      created_at: token.createdAt.getTime(),
      last_used_at: token.lastUsedAt?.getTime() ?? null,
    } as never);
    return toScimToken(row);
  }

  async findById(id: number): Promise<ScimTokenEntity | null> {
    const statement = this.sql.prepare('scimTokens.byId', (v: { id: number }) => this.sql.db.selectFrom('scim_tokens').select(COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<ScimTokenRow>(this.db, { id });
    return row ? toScimToken(row) : null;
  }

  /** Every /scim/v2 request asks it. */
  async findByHash(hash: string): Promise<ScimTokenEntity | null> {
    const statement = this.sql.prepare('scimTokens.byHash', (v: { hash: string }) => this.sql.db.selectFrom('scim_tokens').select(COLUMNS).where('token_hash', '=', v.hash));
    const [row] = await statement.run<ScimTokenRow>(this.db, { hash });
    return row ? toScimToken(row) : null;
  }

  async delete(id: number): Promise<void> {
    const statement = this.sql.prepare('scimTokens.delete', (v: { id: number }) => this.sql.db.deleteFrom('scim_tokens').where('id', '=', v.id));
    await statement.run(this.db, { id });
  }

  async setLastUsed(id: number, at: Date): Promise<void> {
    const statement = this.sql.prepare('scimTokens.lastUsed', (v: { id: number; at: number }) =>
      this.sql.db.updateTable('scim_tokens').set({ last_used_at: v.at }).where('id', '=', v.id),
    );
    await statement.run(this.db, { id, at: at.getTime() });
  }
}
