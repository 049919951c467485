import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { BuildStatus, Platform } from '../builds/build-status';
import { BuildEntity } from '../builds/build.entity';
import { TransactionRunner } from '../database/transaction-runner';
import { AppEntity, AppPlatform } from './app.entity';

/** An app with the summary of its latest build (null fields when it has none). */
export interface AppWithLatestBuild {
  app: AppEntity;
  latest: {
    id: number;
    versionName: string | null;
    buildNumber: string | null;
    statusLabel: BuildStatus | null;
    uploadedAt: Date;
  } | null;
}

interface LatestRow {
  a_id: number;
  a_name: string;
  a_bundle_id_key: string;
  a_platform: AppPlatform;
  a_created_at: string | number;
  b_id: number | null;
  b_version_name: string | null;
  b_build_number: string | null;
  b_status_label: BuildStatus | null;
  b_uploaded_at: string | number | null;
}

@Injectable()
export class AppsRepository {
  constructor(
    @InjectRepository(AppEntity) private readonly apps: Repository<AppEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  findById(id: number, manager?: EntityManager): Promise<AppEntity | null> {
    return (manager?.getRepository(AppEntity) ?? this.apps).findOne({ where: { id } });
  }

  /** Every app with its latest build (by upload time, then id), in one query: newest activity first. */
  async listWithLatestBuild(): Promise<AppWithLatestBuild[]> {
    const latestId = this.apps.manager
      .createQueryBuilder()
      .subQuery()
      .select('b2.id')
      .from(BuildEntity, 'b2')
      .where('b2.app_id = a.id')
      .orderBy('b2.uploaded_at', 'DESC')
      .addOrderBy('b2.id', 'DESC')
      .limit(1)
      .getQuery();
    const rows = await this.apps
      .createQueryBuilder('a')
      .leftJoin(BuildEntity, 'b', `b.id = ${latestId}`)
      .select([
        'a.id AS a_id',
        'a.name AS a_name',
        'a.bundle_id_key AS a_bundle_id_key',
        'a.platform AS a_platform',
        'a.created_at AS a_created_at',
        'b.id AS b_id',
        'b.version_name AS b_version_name',
        'b.build_number AS b_build_number',
        'b.status_label AS b_status_label',
        'b.uploaded_at AS b_uploaded_at',
      ])
      .orderBy('b.uploaded_at', 'DESC', 'NULLS LAST')
      .addOrderBy('a.id', 'DESC')
      .getRawMany<LatestRow>();
    return rows.map((row) => ({
      app: Object.assign(new AppEntity(), {
        id: Number(row.a_id),
        name: row.a_name,
        bundleIdKey: row.a_bundle_id_key,
        platform: row.a_platform,
        createdAt: new Date(Number(row.a_created_at)),
      }),
      latest:
        row.b_id == null
          ? null
          : {
              id: Number(row.b_id),
              versionName: row.b_version_name,
              buildNumber: row.b_build_number,
              statusLabel: row.b_status_label,
              uploadedAt: new Date(Number(row.b_uploaded_at)),
            },
    }));
  }

  /** The app a build with this bundle id files under: same bundle id, and the build's platform or `both` (a platform match wins). */
  async findForBundle(bundleId: string, platform: Platform, manager: EntityManager): Promise<AppEntity | null> {
    const candidates = await manager.getRepository(AppEntity).find({
      where: { bundleIdKey: bundleId, platform: In([platform, 'both']) },
      order: { id: 'ASC' },
    });
    return candidates.find((a) => a.platform === platform) ?? candidates[0] ?? null;
  }

  create(values: Omit<AppEntity, 'id'>, manager?: EntityManager): Promise<AppEntity> {
    const repo = manager?.getRepository(AppEntity) ?? this.apps;
    return repo.save(repo.create(values));
  }

  async rename(id: number, name: string): Promise<boolean> {
    const result = await this.apps.update({ id }, { name });
    return !!result.affected;
  }

  /** Deletes the app and its builds in one transaction; returns the deleted builds (for their files), or null when no such app. */
  deleteWithBuilds(id: number): Promise<Pick<BuildEntity, 'id' | 'fileName'>[] | null> {
    return this.transactions.run(async (manager) => {
      if (!(await manager.getRepository(AppEntity).exists({ where: { id } }))) return null;
      const builds = await manager.getRepository(BuildEntity).find({ where: { appId: id }, select: { id: true, fileName: true } });
      await manager.getRepository(BuildEntity).delete({ appId: id });
      await manager.getRepository(AppEntity).delete({ id });
      return builds;
    });
  }
}
