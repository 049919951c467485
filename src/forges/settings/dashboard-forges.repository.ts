import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { fieldsAsColumns, insertReturningId } from '../../database/query-builder/rows';
import type { ForgesTable } from '../../database/query-builder/tables';
import { inLists } from '../../database/in-lists';
import { TransactionRunner } from '../../database/transaction-runner';
import type { ForgeType } from '../../config/forge-config';
import type { ForgeEntity } from './forge.entity';
import { SqlExecutor } from '../../database/sql-executor';
import type { Sql } from '../../database/sql';

/** A dashboard forge with the repositories it serves. */
export interface DashboardForgeRow {
  forge: ForgeEntity;
  repositories: string[];
}

type Row = { [K in keyof ForgesTable]: unknown };
type ForgeFields = Omit<ForgeEntity, 'id'>;

/** Entity field → column. */
const COLUMNS: Record<keyof ForgeFields, Exclude<keyof ForgesTable, 'id'>> = {
  type: 'type',
  url: 'url',
  context: 'context',
  tokenSealed: 'token_sealed',
  appId: 'app_id',
  installationId: 'installation_id',
  privateKeySealed: 'private_key_sealed',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** The `forges` and `forge_repositories` tables: a forge and its repositories always change together. */
@Injectable()
export class DashboardForgesRepository {
  private readonly sql: QueryBuilder;

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async all(): Promise<DashboardForgeRow[]> {
    const statement = this.sql.prepare('forges.all', () => this.sql.db.selectFrom('forges').selectAll().orderBy('id', 'asc'));
    const forges = (await statement.run<Row>(this.db, {})).map(fromRow);
    const repositories: { forgeId: number; repository: string; key: string }[] = [];
    for (const list of inLists(forges.map((f) => f.id))) repositories.push(...(await this.repositoriesOf(list)));
    // Each forge's repositories are in one list, in the database's order of their keys.
    return forges.map((forge) => ({ forge, repositories: repositories.filter((r) => r.forgeId === forge.id).map((r) => r.repository) }));
  }

  async findOne(id: number): Promise<DashboardForgeRow | null> {
    const statement = this.sql.prepare('forges.byId', (v: { id: number }) => this.sql.db.selectFrom('forges').selectAll().where('id', '=', v.id));
    const [row] = await statement.run<Row>(this.db, { id });
    if (!row) return null;
    return { forge: fromRow(row), repositories: (await this.repositoriesOf([id])).map((r) => r.repository) };
  }

  /** Inserts the forge and its repositories in one transaction; a repository another forge serves fails it with a unique violation. */
  create(forge: ForgeFields, repositories: string[]): Promise<ForgeEntity> {
    return this.transactions.run(async (tx) => {
      const id = await insertReturningId(tx, 'forges', fieldsAsColumns(forge, COLUMNS) as never);
      await this.claim(tx, id, repositories);
      return { id, ...forge };
    });
  }

  /** Changes the forge and, when given, replaces its repositories, in one transaction. */
  update(id: number, changes: Partial<ForgeFields>, repositories: string[] | null): Promise<void> {
    return this.transactions.run(async (tx) => {
      const set = fieldsAsColumns(changes, COLUMNS);
      const columns = Object.keys(set);
      if (columns.length) {
        const statement = this.sql.prepare(`forges.update ${columns.join(',')}`, (v: Record<string, unknown>) =>
          this.sql.db
            .updateTable('forges')
            .set(Object.fromEntries(columns.map((c) => [c, v[c]])) as never)
            .where('id', '=', v.id as number),
        );
        await statement.run(tx, { ...set, id });
      }
      if (!repositories) return;
      const release = this.sql.prepare('forges.releaseRepositories', (v: { id: number }) => this.sql.db.deleteFrom('forge_repositories').where('forge_id', '=', v.id));
      await release.run(tx, { id });
      await this.claim(tx, id, repositories);
    });
  }

  /** Deletes the forge (its repositories go with it: ON DELETE CASCADE); false when there was none. */
  async remove(id: number): Promise<boolean> {
    const statement = this.sql.prepare('forges.remove', (v: { id: number }) => this.sql.db.deleteFrom('forges').where('id', '=', v.id).returning('id'));
    return (await statement.run(this.db, { id })).length > 0;
  }

  /** The repositories of these forges, by key. */
  private async repositoriesOf(forgeIds: number[]): Promise<{ forgeId: number; repository: string; key: string }[]> {
    if (!forgeIds.length) return [];
    const statement = this.sql.prepare(`forges.repositoriesOf ${forgeIds.length}`, (v: number[]) =>
      this.sql.db
        .selectFrom('forge_repositories')
        .select(['forge_id', 'repository', 'repository_key'])
        .where(
          'forge_id',
          'in',
          forgeIds.map((_, i) => v[i]),
        )
        .orderBy('repository_key', 'asc'),
    );
    const rows = await statement.run<{ forge_id: number | string; repository: string; repository_key: string }>(this.db, forgeIds);
    return rows.map((r) => ({ forgeId: Number(r.forge_id), repository: r.repository, key: r.repository_key }));
  }

  private async claim(tx: Sql, forgeId: number, repositories: string[]): Promise<void> {
    const statement = this.sql.prepare('forges.claim', (v: { key: string; forgeId: number; repository: string }) =>
      this.sql.db.insertInto('forge_repositories').values({ repository_key: v.key, forge_id: v.forgeId, repository: v.repository }),
    );
    for (const repository of repositories) await statement.run(tx, { key: repository.toLowerCase(), forgeId, repository });
  }
}

/** PostgreSQL gives bigint columns as strings, SQLite as numbers. */
function fromRow(r: Row): ForgeEntity {
  return {
    id: Number(r.id),
    type: r.type as ForgeType,
    url: r.url as string,
    context: r.context as string,
    tokenSealed: (r.token_sealed as string | null) ?? null,
    appId: (r.app_id as string | null) ?? null,
    installationId: (r.installation_id as string | null) ?? null,
    privateKeySealed: (r.private_key_sealed as string | null) ?? null,
    createdAt: new Date(Number(r.created_at)),
    updatedAt: new Date(Number(r.updated_at)),
  };
}
