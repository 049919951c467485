import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../../database/unique-violation';
import { BuildEntity } from '../build.entity';
import type { Platform } from '../build-status';
import { insertRow } from '../builds.repository';
import type { BuildContents } from '../inspection/build-contents';
import { BuildContentsEntity } from './build-contents.entity';
import { AppCompareSettingsEntity } from './compare-settings.entity';

/** The build a comparison starts from: what the lookups of the one it compares with need. */
export type ComparedBuild = Pick<BuildEntity, 'id' | 'appId' | 'platform' | 'uploadedAt' | 'versionName' | 'buildNumber' | 'statusLabel' | 'fileName' | 'fileSize'>;

const COMPARED_COLUMNS = ['id', 'appId', 'platform', 'uploadedAt', 'versionName', 'buildNumber', 'statusLabel', 'fileName', 'fileSize'] as const;

/** build_contents and app_compare_settings rows, and the lookups a comparison makes on builds. */
@Injectable()
export class BuildContentsRepository {
  constructor(
    @InjectRepository(BuildContentsEntity) private readonly contents: Repository<BuildContentsEntity>,
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
    @InjectRepository(AppCompareSettingsEntity) private readonly settings: Repository<AppCompareSettingsEntity>,
  ) {}

  find(buildId: number): Promise<BuildContentsEntity | null> {
    return this.contents.findOneBy({ buildId });
  }

  /** Inside the upload's transaction (`manager`), or alone for contents read later; a row already there wins. */
  async insert(buildId: number, contents: BuildContents, at: Date, manager?: EntityManager): Promise<void> {
    try {
      await insertRow(manager ?? this.contents.manager, 'build_contents', {
        build_id: buildId,
        format: contents.format,
        data: JSON.stringify(contents),
        computed_at: at.getTime(),
      });
    } catch (err) {
      // Two first requests for an old build's contents read it at once: the second one's row is the same.
      if (!manager && isUniqueViolation(err)) return;
      throw err;
    }
  }

  build(id: number): Promise<ComparedBuild | null> {
    return this.builds.findOne({ select: [...COMPARED_COLUMNS], where: { id } });
  }

  /**
   * The build of the same app and platform uploaded just before `build` (ties on upload time broken
   * by id), optionally only among those with `status`: one seek of IDX_builds_app_platform_uploaded
   * or IDX_builds_app_platform_status_uploaded.
   */
  async previous(build: ComparedBuild, status?: 'Done'): Promise<ComparedBuild | null> {
    const at = build.uploadedAt.getTime();
    const query = this.builds
      .createQueryBuilder('b')
      .select(COMPARED_COLUMNS.map((c) => `b.${c}`))
      .where('b.app_id = :appId AND b.platform = :platform', { appId: build.appId, platform: build.platform as Platform })
      // A row value, not `uploaded_at < :at OR (…)`: both dialects turn it into the index range's upper bound.
      .andWhere('(b.uploaded_at, b.id) < (:at, :id)', { at, id: build.id });
    if (status) query.andWhere('b.status_label = :status', { status });
    return query.orderBy('b.uploaded_at', 'DESC').addOrderBy('b.id', 'DESC').limit(1).getOne();
  }

  async settingsOf(appId: number): Promise<string | null> {
    return (await this.settings.findOneBy({ appId }))?.data ?? null;
  }

  async saveSettings(appId: number, data: string): Promise<void> {
    await this.settings.upsert({ appId, data }, ['appId']);
  }
}
