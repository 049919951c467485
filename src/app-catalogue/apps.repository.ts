import { Injectable } from '@nestjs/common';
import type { Platform } from './platform';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { deleteById, insertReturningId, updateById } from '../database/query-builder/rows';
import { lockedForUpdate } from '../database/row-lock';
import { AppEntity, AppPlatform } from './app.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

interface AppRow {
  id: number | string;
  name: string;
  bundle_id_key: string;
  platform: AppPlatform;
  created_at: number | string;
}

const COLUMNS = ['id', 'name', 'bundle_id_key', 'platform', 'created_at'] as const;

/** The apps table; only the catalogue module reads or writes it. */
@Injectable()
export class AppsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async findById(id: number, tx?: Sql): Promise<AppEntity | null> {
    const statement = this.sql.prepare('apps.byId', (v: { id: number }) => this.sql.db.selectFrom('apps').select(COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<AppRow>(tx ?? this.db, { id });
    return row ? toApp(row) : null;
  }

  async findAll(): Promise<AppEntity[]> {
    const statement = this.sql.prepare('apps.all', () => this.sql.db.selectFrom('apps').select(COLUMNS).orderBy('id'));
    return (await statement.run<AppRow>(this.db, {})).map(toApp);
  }

  /** The app a build with this bundle id files under: same bundle id, and the build's platform or `both` (a platform match wins). */
  /**
   * Every upload asks it: a prepared statement, not a find() built through TypeORM's query builder
   * and hydrated (a share of a small upload's CPU, docs/decisions.md#issue-27-ingest).
   */
  async findForBundle(bundleId: string, platform: Platform, tx: Sql): Promise<AppEntity | null> {
    const statement = this.sql.prepare('apps.forBundle', (v: { bundleId: string; platform: Platform; both: 'both' }) =>
      this.sql.db
        .selectFrom('apps')
        .select(COLUMNS)
        .where('bundle_id_key', '=', v.bundleId)
        .where('platform', 'in', [v.platform, v.both])
        .orderBy('id'),
    );
    const rows = await statement.run<AppRow>(tx, { bundleId, platform, both: 'both' });
    const row = rows.find((a) => a.platform === platform) ?? rows[0];
    return row ? toApp(row) : null;
  }

  /**
   * Inserts the app unless one with the same (platform, bundle_id_key) exists: the unique key
   * decides a race (PostgreSQL waits for the other transaction and then does nothing), with no error
   * to abort the caller's transaction. Read the app afterwards.
   */
  async insertUnlessExists(values: Omit<AppEntity, 'id'>, tx: Sql): Promise<void> {
    const statement = this.sql.prepare('apps.insertUnlessExists', (v: { name: string; bundleIdKey: string; platform: AppPlatform; createdAt: number }) =>
      this.sql.db
        .insertInto('apps')
        .values({ name: v.name, bundle_id_key: v.bundleIdKey, platform: v.platform, created_at: v.createdAt })
        .onConflict((oc) => oc.doNothing()),
    );
    await statement.run(tx, { ...values, createdAt: values.createdAt.getTime() });
  }

  async create(values: Omit<AppEntity, 'id'>, tx?: Sql): Promise<AppEntity> {
    const id = await insertReturningId(tx ?? this.db, 'apps', {
      name: values.name,
      bundle_id_key: values.bundleIdKey,
      platform: values.platform,
      created_at: values.createdAt.getTime(),
    });
    return Object.assign(new AppEntity(), { id, ...values });
  }

  async rename(id: number, name: string): Promise<boolean> {
    return (await updateById(this.db, 'apps', id, { name })) > 0;
  }

  /**
   * True when the app exists; on PostgreSQL its row is also locked until the transaction ends, so
   * a build insert into it (whose foreign key check shares the row) waits for the deletion, and a
   * deletion waits for a build insert already made. SQLite runs one write transaction at a time.
   */
  async lockForDeletion(id: number, tx: Sql): Promise<boolean> {
    const statement = this.sql.prepare('apps.lockForDeletion', (v: { id: number }) => lockedForUpdate(this.sql, this.sql.db.selectFrom('apps').select('id').where('id', '=', v.id)));
    return (await statement.run(tx, { id })).length > 0;
  }

  delete(id: number, tx: Sql): Promise<boolean> {
    return deleteById(tx, 'apps', id);
  }
}

function toApp(row: AppRow): AppEntity {
  return Object.assign(new AppEntity(), { id: Number(row.id), name: row.name, bundleIdKey: row.bundle_id_key, platform: row.platform, createdAt: new Date(Number(row.created_at)) });
}
