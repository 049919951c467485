import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Platform } from './platform';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { forUpdate } from '../database/row-lock';
import { AppEntity, AppPlatform } from './app.entity';

interface AppRow {
  id: number | string;
  name: string;
  bundle_id_key: string;
  platform: AppPlatform;
  created_at: number | string;
}

/** The apps table; only the catalogue module reads or writes it. */
@Injectable()
export class AppsRepository {
  private readonly sql: QueryBuilder;

  constructor(@InjectRepository(AppEntity) private readonly apps: Repository<AppEntity>) {
    this.sql = QueryBuilder.of(apps.manager.connection);
  }

  findById(id: number, manager?: EntityManager): Promise<AppEntity | null> {
    return (manager?.getRepository(AppEntity) ?? this.apps).findOne({ where: { id } });
  }

  findAll(): Promise<AppEntity[]> {
    return this.apps.find();
  }

  /** The app a build with this bundle id files under: same bundle id, and the build's platform or `both` (a platform match wins). */
  /**
   * Every upload asks it: a prepared statement, not a find() built through TypeORM's query builder
   * and hydrated (a share of a small upload's CPU, docs/decisions.md#issue-27-ingest).
   */
  async findForBundle(bundleId: string, platform: Platform, manager: EntityManager): Promise<AppEntity | null> {
    const statement = this.sql.prepare('apps.forBundle', (v: { bundleId: string; platform: Platform; both: 'both' }) =>
      this.sql.db
        .selectFrom('apps')
        .select(['id', 'name', 'bundle_id_key', 'platform', 'created_at'])
        .where('bundle_id_key', '=', v.bundleId)
        .where('platform', 'in', [v.platform, v.both])
        .orderBy('id'),
    );
    const rows = await statement.run<AppRow>(manager, { bundleId, platform, both: 'both' });
    const row = rows.find((a) => a.platform === platform) ?? rows[0];
    return row
      ? Object.assign(new AppEntity(), { id: Number(row.id), name: row.name, bundleIdKey: row.bundle_id_key, platform: row.platform, createdAt: new Date(Number(row.created_at)) })
      : null;
  }

  /**
   * Inserts the app unless one with the same (platform, bundle_id_key) exists: the unique key
   * decides a race (PostgreSQL waits for the other transaction and then does nothing), with no error
   * to abort the caller's transaction. Read the app afterwards.
   */
  async insertUnlessExists(values: Omit<AppEntity, 'id'>, manager: EntityManager): Promise<void> {
    await manager.createQueryBuilder().insert().into(AppEntity).values(values).orIgnore().execute();
  }

  create(values: Omit<AppEntity, 'id'>, manager?: EntityManager): Promise<AppEntity> {
    const repo = manager?.getRepository(AppEntity) ?? this.apps;
    return repo.save(repo.create(values));
  }

  async rename(id: number, name: string): Promise<boolean> {
    const result = await this.apps.update({ id }, { name });
    return !!result.affected;
  }

  /**
   * True when the app exists; on PostgreSQL its row is also locked until the transaction ends, so
   * a build insert into it (whose foreign key check shares the row) waits for the deletion, and a
   * deletion waits for a build insert already made. SQLite runs one write transaction at a time.
   */
  async lockForDeletion(id: number, manager: EntityManager): Promise<boolean> {
    return !!(await manager.getRepository(AppEntity).findOne({ where: { id }, select: { id: true }, ...forUpdate(manager) }));
  }

  async delete(id: number, manager: EntityManager): Promise<boolean> {
    const result = await manager.getRepository(AppEntity).delete({ id });
    return !!result.affected;
  }
}
