import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { Platform } from './platform';
import { forUpdate } from '../database/row-lock';
import { AppEntity } from './app.entity';

/** The apps table; only the catalogue module reads or writes it. */
@Injectable()
export class AppsRepository {
  constructor(@InjectRepository(AppEntity) private readonly apps: Repository<AppEntity>) {}

  findById(id: number, manager?: EntityManager): Promise<AppEntity | null> {
    return (manager?.getRepository(AppEntity) ?? this.apps).findOne({ where: { id } });
  }

  findAll(): Promise<AppEntity[]> {
    return this.apps.find();
  }

  /** The app a build with this bundle id files under: same bundle id, and the build's platform or `both` (a platform match wins). */
  async findForBundle(bundleId: string, platform: Platform, manager: EntityManager): Promise<AppEntity | null> {
    const candidates = await manager.getRepository(AppEntity).find({
      where: { bundleIdKey: bundleId, platform: In([platform, 'both']) },
      order: { id: 'ASC' },
    });
    return candidates.find((a) => a.platform === platform) ?? candidates[0] ?? null;
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
