import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { inLists } from '../../database/in-lists';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { isUniqueViolation } from '../../database/unique-violation';
import type { Platform } from '../../app-catalogue/platform';
import { COMPARED_BUILD_COLUMNS, type ComparedBuild, type ComparedBuildRow, toComparedBuild } from '../build-rows';
import { insertRow } from '../builds.repository';
import type { BuildContents } from '../../inspection/build-contents';
import type { ComparisonFlag } from './build-comparison';
import { BuildContentsEntity } from './build-contents.entity';
import { SqlExecutor } from '../../database/sql-executor';
import type { Sql } from '../../database/sql';

export type { ComparedBuild } from '../build-rows';

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

/** build_contents and app_compare_settings rows, and the lookups a comparison makes on builds. */
@Injectable()
export class BuildContentsRepository {
  private readonly sql: QueryBuilder;
  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** `tx`: inside the upload's transaction (the flags computed there), else alone. */
  async find(buildId: number, tx: Sql = this.db): Promise<BuildContentsEntity | null> {
    const statement = this.sql.prepare('contents.of', (v: { buildId: number }) =>
      this.sql.db.selectFrom('build_contents').select(['build_id', 'format', 'data', 'computed_at']).where('build_id', '=', v.buildId),
    );
    const [row] = await statement.run<{ build_id: number | string; format: number | string; data: string; computed_at: number | string }>(tx, { buildId });
    if (!row) return null;
    return Object.assign(new BuildContentsEntity(), {
      buildId: Number(row.build_id),
      format: Number(row.format),
      data: row.data,
      computedAt: new Date(Number(row.computed_at)),
    });
  }

  /** Inside the upload's transaction (`tx`), or alone for contents read later; a row already there wins. */
  async insert(buildId: number, contents: BuildContents, at: Date, tx?: Sql): Promise<void> {
    try {
      await insertRow(tx ?? this.db, 'build_contents', {
        build_id: buildId,
        format: contents.format,
        data: JSON.stringify(contents),
        computed_at: at.getTime(),
      });
    } catch (err) {
      // Two first requests for an old build's contents read it at once: the second one's row is the same.
      if (!tx && isUniqueViolation(err)) return;
      throw err;
    }
  }

  async build(id: number): Promise<ComparedBuild | null> {
    const statement = this.sql.prepare('contents.build', (v: { id: number }) => this.sql.db.selectFrom('builds').select(COMPARED_BUILD_COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<ComparedBuildRow>(this.db, { id });
    return row ? toComparedBuild(row) : null;
  }

  /**
   * The build of the same app and platform uploaded just before `build` (ties on upload time broken
   * by id), optionally only among those with `status`: one seek of IDX_builds_app_platform_uploaded
   * or IDX_builds_app_platform_status_uploaded.
   */
  async previous(build: ComparedBuild, status?: 'Done', tx: Sql = this.db): Promise<ComparedBuild | null> {
    const statement = this.sql.prepare(`contents.previous ${status ?? 'any'}`, (v: { appId: number; platform: Platform; at: number; id: number; status: string }) => {
      const query = this.sql.db
        .selectFrom('builds as b')
        .select(COMPARED_BUILD_COLUMNS.map((column) => `b.${column}` as const))
        .where('b.app_id', '=', v.appId)
        .where('b.platform', '=', v.platform)
        // A row value, not `uploaded_at < :at OR (…)`: both dialects turn it into the index range's upper bound.
        .where((eb) => eb(eb.refTuple('b.uploaded_at', 'b.id'), '<', eb.tuple(v.at, v.id)));
      return (status ? query.where('b.status_label', '=', v.status) : query).orderBy('b.uploaded_at', 'desc').orderBy('b.id', 'desc').limit(sql.lit(1));
    });
    const [row] = await statement.run<ComparedBuildRow>(tx, {
      appId: build.appId,
      platform: build.platform,
      at: build.uploadedAt.getTime(),
      id: build.id,
      status: status ?? '',
    });
    return row ? toComparedBuild(row) : null;
  }

  /**
   * At upload, in its transaction: the build before `build` (as previous()) with its contents row
   * and its app's settings, in one prepared statement. Three statements built by TypeORM's query
   * builder before (previous(), find(), settingsOf()): the largest share of the relay's own
   * CPU per small upload beyond the baseline's (docs/decisions.md#issue-27-ingest).
   */
  async previousContents(build: ComparedBuild, tx: Sql): Promise<PreviousContents | null> {
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
    const [row] = await statement.run<{ id: number | string; format: number | string | null; data: string | null; settings: string | null }>(tx, {
      appId: build.appId,
      platform: build.platform as Platform,
      at: build.uploadedAt.getTime(),
      id: build.id,
    });
    return row ? { id: Number(row.id), format: row.format === null ? null : Number(row.format), data: row.data, settings: row.settings } : null;
  }

  async settingsOf(appId: number, tx: Sql = this.db): Promise<string | null> {
    const statement = this.sql.prepare('contents.settingsOf', (v: { appId: number }) => this.sql.db.selectFrom('app_compare_settings').select('data').where('app_id', '=', v.appId));
    const [row] = await statement.run<{ data: string }>(tx, { appId });
    return row?.data ?? null;
  }

  /** The flags of a build's comparison with the one before it, in the upload's transaction (only when there are some). */
  async insertFlags(buildId: number, comparedWithId: number, flags: ComparisonFlag[], tx: Sql): Promise<void> {
    await insertRow(tx, 'build_flags', {
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
    const statement = this.sql.prepare(`contents.recentSizes ${platform ? 'platform' : 'both'}`, (v: { appId: number; platform: Platform; limit: number }) => {
      const query = this.sql.db
        .selectFrom('builds as b')
        .leftJoin('build_flags as f', 'f.build_id', 'b.id')
        .select(['b.id', 'b.platform', 'b.version_name', 'b.build_number', 'b.uploaded_at', 'b.file_size', 'f.flag_count'])
        .where('b.app_id', '=', v.appId);
      return (platform ? query.where('b.platform', '=', v.platform) : query).orderBy('b.uploaded_at', 'desc').orderBy('b.id', 'desc').limit(v.limit);
    });
    const rows = await statement.run<RecentSizeRow>(this.db, { appId, platform: platform ?? 'ios', limit });
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
    const flags = new Map<number, ComparisonFlag[]>();
    for (const list of inLists(buildIds)) {
      const statement = this.sql.prepare(`contents.flagsOf ${list.length}`, (v: number[]) =>
        this.sql.db
          .selectFrom('build_flags')
          .select(['build_id', 'flags'])
          .where(
            'build_id',
            'in',
            list.map((_, i) => v[i]),
          ),
      );
      for (const row of await statement.run<{ build_id: number | string; flags: string }>(this.db, list)) flags.set(Number(row.build_id), JSON.parse(row.flags) as ComparisonFlag[]);
    }
    return flags;
  }

  /** Sets the app's settings, replacing any (one statement: INSERT … ON CONFLICT on both dialects). */
  async saveSettings(appId: number, data: string): Promise<void> {
    const statement = this.sql.prepare('contents.saveSettings', (v: { appId: number; data: string }) =>
      this.sql.db
        .insertInto('app_compare_settings')
        .values({ app_id: v.appId, data: v.data })
        .onConflict((conflict) => conflict.column('app_id').doUpdateSet((eb) => ({ data: eb.ref('excluded.data') }))),
    );
    await statement.run(this.db, { appId, data });
  }
}
