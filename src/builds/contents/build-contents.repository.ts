import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { sql } from 'kysely';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { isUniqueViolation } from '../../database/unique-violation';
import { BuildEntity } from '../build.entity';
import type { Platform } from '../../app-catalogue/platform';
import { insertRow } from '../builds.repository';
import type { BuildContents } from '../../inspection/build-contents';
import type { ComparisonFlag } from './build-comparison';
import { BuildContentsEntity } from './build-contents.entity';
import { AppCompareSettingsEntity } from './compare-settings.entity';

/** The build a comparison starts from: what the lookups of the one it compares with need. */
export type ComparedBuild = Pick<BuildEntity, 'id' | 'appId' | 'platform' | 'uploadedAt' | 'versionName' | 'buildNumber' | 'statusLabel' | 'fileName' | 'fileSize'>;

/** One build of GET /apps/:id/sizes. */
export interface RecentSize {
  id: number;
  platform: Platform;
  versionName: string | null;
  buildNumber: string | null;
  uploadedAt: Date;
  fileSize: number;
  flagCount: number;
}

interface RecentSizeRow {
  id: number | string;
  platform: Platform;
  version_name: string | null;
  build_number: string | null;
  uploaded_at: number | string;
  file_size: number | string;
  flag_count: number | string | null;
}

/** What an upload compares its contents with: the build before it, its stored contents (if any) and the app's settings (if set). */
export interface PreviousContents {
  id: number;
  format: number | null;
  data: string | null;
  settings: string | null;
}

const COMPARED_COLUMNS = ['id', 'appId', 'platform', 'uploadedAt', 'versionName', 'buildNumber', 'statusLabel', 'fileName', 'fileSize'] as const;

/** build_contents and app_compare_settings rows, and the lookups a comparison makes on builds. */
@Injectable()
export class BuildContentsRepository {
  private readonly sql: QueryBuilder;

  constructor(
    @InjectRepository(BuildContentsEntity) private readonly contents: Repository<BuildContentsEntity>,
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
    @InjectRepository(AppCompareSettingsEntity) private readonly settings: Repository<AppCompareSettingsEntity>,
  ) {
    this.sql = QueryBuilder.of(builds.manager.connection);
  }

  /** `manager`: inside the upload's transaction (the flags computed there), else alone. */
  find(buildId: number, manager?: EntityManager): Promise<BuildContentsEntity | null> {
    return (manager ?? this.contents.manager).findOneBy(BuildContentsEntity, { buildId });
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
  async previous(build: ComparedBuild, status?: 'Done', manager?: EntityManager): Promise<ComparedBuild | null> {
    const at = build.uploadedAt.getTime();
    const query = (manager ?? this.builds.manager)
      .createQueryBuilder(BuildEntity, 'b')
      .select(COMPARED_COLUMNS.map((c) => `b.${c}`))
      .where('b.app_id = :appId AND b.platform = :platform', { appId: build.appId, platform: build.platform as Platform })
      // A row value, not `uploaded_at < :at OR (…)`: both dialects turn it into the index range's upper bound.
      .andWhere('(b.uploaded_at, b.id) < (:at, :id)', { at, id: build.id });
    if (status) query.andWhere('b.status_label = :status', { status });
    return query.orderBy('b.uploaded_at', 'DESC').addOrderBy('b.id', 'DESC').limit(1).getOne();
  }

  /**
   * At upload, in its transaction: the build before `build` (as previous()) with its contents row
   * and its app's settings, in one prepared statement. Three statements built by TypeORM's query
   * builder before (previous(), find(), settingsOf()): the largest share of the relay's own
   * CPU per small upload beyond the baseline's (docs/decisions.md#issue-27-ingest).
   */
  async previousContents(build: ComparedBuild, manager: EntityManager): Promise<PreviousContents | null> {
    const statement = this.sql.prepare('contents.previousAtUpload', (v: { appId: number; platform: Platform; at: number; id: number }) =>
      this.sql.db
        .selectFrom('builds as b')
        .leftJoin('build_contents as c', 'c.build_id', 'b.id')
        .select(['b.id', 'c.format', 'c.data'])
        .select((eb) => eb.selectFrom('app_compare_settings as s').select('s.data').whereRef('s.app_id', '=', 'b.app_id').as('settings'))
        .where('b.app_id', '=', v.appId)
        .where('b.platform', '=', v.platform)
        // A row value: both dialects turn it into the index range's upper bound (IDX_builds_app_platform_uploaded).
        .where((eb) => eb(eb.refTuple('b.uploaded_at', 'b.id'), '<', eb.tuple(v.at, v.id)))
        .orderBy('b.uploaded_at', 'desc')
        .orderBy('b.id', 'desc')
        .limit(sql.lit(1)),
    );
    const [row] = await statement.run<{ id: number | string; format: number | string | null; data: string | null; settings: string | null }>(manager, {
      appId: build.appId,
      platform: build.platform as Platform,
      at: build.uploadedAt.getTime(),
      id: build.id,
    });
    return row ? { id: Number(row.id), format: row.format === null ? null : Number(row.format), data: row.data, settings: row.settings } : null;
  }

  async settingsOf(appId: number, manager?: EntityManager): Promise<string | null> {
    return (await (manager ?? this.settings.manager).findOneBy(AppCompareSettingsEntity, { appId }))?.data ?? null;
  }

  /** The flags of a build's comparison with the one before it, in the upload's transaction (only when there are some). */
  async insertFlags(buildId: number, comparedWithId: number, flags: ComparisonFlag[], manager: EntityManager): Promise<void> {
    await insertRow(manager, 'build_flags', {
      build_id: buildId,
      compared_with_id: comparedWithId,
      flag_count: flags.length,
      flags: JSON.stringify(flags),
    });
  }

  /**
   * The app's last `limit` builds (on `platform`, or on both), newest first, with their file size
   * and flag count: one backward walk of IDX_builds_app_platform_uploaded (IDX_builds_app_uploaded
   * for an app of both platforms), a row and a flags lookup per build.
   */
  async recentSizes(appId: number, platform: Platform | null, limit: number): Promise<RecentSize[]> {
    const query = this.builds
      .createQueryBuilder('b')
      .select(['b.id AS id', 'b.platform AS platform', 'b.version_name AS version_name', 'b.build_number AS build_number', 'b.uploaded_at AS uploaded_at'])
      .addSelect('b.file_size', 'file_size')
      .addSelect('f.flag_count', 'flag_count')
      .leftJoin('build_flags', 'f', 'f.build_id = b.id')
      .where('b.app_id = :appId', { appId });
    if (platform) query.andWhere('b.platform = :platform', { platform });
    const rows: RecentSizeRow[] = await query.orderBy('b.uploaded_at', 'DESC').addOrderBy('b.id', 'DESC').limit(limit).getRawMany();
    return rows.map((row) => ({
      id: Number(row.id),
      platform: row.platform,
      versionName: row.version_name,
      buildNumber: row.build_number,
      uploadedAt: new Date(Number(row.uploaded_at)),
      fileSize: Number(row.file_size),
      flagCount: Number(row.flag_count ?? 0),
    }));
  }

  /** The flags stored at upload for these builds (by primary key), by build id; builds without any are absent. */
  async flagsOf(buildIds: number[]): Promise<Map<number, ComparisonFlag[]>> {
    if (!buildIds.length) return new Map();
    const rows: { build_id: number | string; flags: string }[] = await this.builds.manager
      .createQueryBuilder()
      .select(['f.build_id AS build_id', 'f.flags AS flags'])
      .from('build_flags', 'f')
      .where('f.build_id IN (:...ids)', { ids: buildIds })
      .getRawMany();
    return new Map(rows.map((row) => [Number(row.build_id), JSON.parse(row.flags) as ComparisonFlag[]]));
  }

  async saveSettings(appId: number, data: string): Promise<void> {
    await this.settings.upsert({ appId, data }, ['appId']);
  }
}
