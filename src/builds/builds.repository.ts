import { Injectable } from '@nestjs/common';
import { sql, type Insertable } from 'kysely';
import { inLists } from '../database/in-lists';
import { lockedForUpdate } from '../database/row-lock';
import { fieldsAsColumns, updateById } from '../database/query-builder/rows';
import { type ExplicitTransaction, TransactionRunner } from '../database/transaction-runner';
import { QueryBuilder } from '../database/query-builder/query-builder';
import type { Database } from '../database/query-builder/tables';
import { JOINED_USER_COLUMNS, joinedUser, type JoinedUserRow } from '../users/joined-user';
import { countedTotal, keptRowsTotal, listed, pageIds, PageValues, pageValues, searchMode, seekPageIds, seeksByDay, shapeOf, textCounts, totalOf } from './build-list.repository';
import { textCountsKey, withIndexedQ } from './build-search.repository';
import type { BuildPageQuery, LatestBuild, ListedBuild, ShownBuild, Uploader } from './build-page';
import { SearchTotals, TextCounts } from './search-totals';
import { BuildEntity, type BuildGateState } from './build.entity';
import { BUILD_COLUMNS, BUILD_FIELD_COLUMNS, type BuildRow, toBuild } from './build-rows';
import type { Platform } from '../app-catalogue/platform';
import type { BuildStatus, StatusActor } from './build-status';
import { BuildStatusChangeEntity } from './build-status-change.entity';
import { BuildIconEntity } from './build-icon.entity';
import type { BuildProvenanceEntity } from './provenance/build-provenance.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

interface LatestRow {
  id: number;
  app_id: number;
  version_name: string | null;
  build_number: string | null;
  status_label: BuildStatus | null;
  uploaded_at: string | number;
  build_count: string | number;
  has_icon: boolean | number | string;
}

/**
 * A builds row with its uploader, icon, flags and provenance, as an array in the order build-list.repository.ts `listed`
 * selects (PostgreSQL gives bigint columns as strings, SQLite a boolean as 0 or 1).
 */
type ListedValues = [
  id: number | string,
  appId: number | string,
  name: string,
  versionName: string | null,
  buildNumber: string | null,
  versionLabel: string | null,
  statusLabel: BuildStatus | null,
  platform: Platform,
  bundleId: string,
  uploadedAt: number | string,
  completedAt: number | string | null,
  deleteAfter: number | string | null,
  uploadId: number | string | null,
  uploaderId: number | string | null,
  keptName: string | null,
  keptEmail: string | null,
  userName: string | null,
  userEmail: string | null,
  hasIcon: number | boolean,
  flags: string | null,
  provenanceId: number | string | null,
  commit: string | null,
  branch: string | null,
  repository: string | null,
  pullRequest: number | string | null,
  ciUrl: string | null,
  changelog: string | null,
];

function listedFromValues(values: unknown[]): ListedBuild {
  const [id, appId, name, versionName, buildNumber, versionLabel, statusLabel, platform, bundleId, uploadedAt, completedAt, deleteAfter,
    uploadId, uploaderId, keptName, keptEmail, userName, userEmail, hasIcon, flags,
    provenanceId, commit, branch, repository, pullRequest, ciUrl, changelog] = values as ListedValues;
  const uploader: Uploader | null =
    uploadId == null
      ? null
      : userEmail != null
        ? { id: Number(uploaderId), displayName: userName, email: userEmail }
        : { id: null, displayName: keptName, email: keptEmail! };
  const build: ShownBuild = {
    id: Number(id),
    appId: Number(appId),
    name,
    versionName,
    buildNumber,
    versionLabel,
    statusLabel,
    platform,
    bundleId,
    uploadedAt: new Date(Number(uploadedAt)),
    completedAt: completedAt == null ? null : new Date(Number(completedAt)),
    deleteAfter: deleteAfter == null ? null : new Date(Number(deleteAfter)),
  };
  const provenance: BuildProvenanceEntity | null =
    provenanceId == null
      ? null
      : { buildId: Number(provenanceId), commit, branch, repository, pullRequest: pullRequest == null ? null : Number(pullRequest), ciUrl, changelog };
  return { build, uploader, hasIcon: Boolean(hasIcon), flags, provenance };
}

/**
 * From this offset a list page counts its matches first and reads from the nearer end of the index
 * (findDeepPage): below it, walking the offset costs less than the extra statement.
 */
const DEEP_PAGE_OFFSET = 2_000;

/** The most file names `withFileNames` takes at once (the orphan sweep's slice of the builds folder). */
export const FILE_NAME_SLICE = 500;

/** Builds' rows. Multi-step writes go through the shared TransactionRunner (one at a time on SQLite). */
@Injectable()
export class BuildsRepository {
  /** The hand-written statements' builder (compile-only Kysely, in the data source's dialect). */
  private readonly sql: QueryBuilder;
  /** The counts of `q` and `search` lists, kept while no write changed them (search-totals.ts). */
  private readonly textTotals = new SearchTotals();

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /**
   * Runs `work` in a transaction of the shared runner, handed over explicitly: every statement of
   * `work` and of what it calls takes `tx` (TransactionRunner.runExplicit: no AsyncLocalStorage).
   */
  inWriteTransaction<T>(work: (tx: ExplicitTransaction) => Promise<T>): Promise<T> {
    return this.transactions.runExplicit(work);
  }

  /**
   * The upload's three inserts are prepared statements (insertRow): `save()` and `insert()` build
   * each statement through TypeORM's query builder (entity metadata walk, value maps, RETURNING
   * handling), which was the largest single part of a small upload's CPU. Values are bound as the columns store
   * them (timestamps as epoch milliseconds, see timestamp.column.ts).
   */
  async insert(values: Omit<BuildEntity, 'id' | 'app'>, tx: Sql): Promise<BuildEntity> {
    const rows = await insertRow(tx, 'builds', {
      app_id: values.appId,
      name: values.name,
      version_name: values.versionName,
      build_number: values.buildNumber,
      version_label: values.versionLabel,
      status_label: values.statusLabel,
      platform: values.platform,
      bundle_id: values.bundleId,
      file_name: values.fileName,
      original_name: values.originalName,
      file_size: values.fileSize,
      uploaded_at: values.uploadedAt.getTime(),
      completed_at: values.completedAt?.getTime() ?? null,
      delete_after: values.deleteAfter?.getTime() ?? null,
    });
    return Object.assign(new BuildEntity(), values, { id: Number(rows[0].id) });
  }

  /** Appends one entry to a build's status history, inside the caller's transaction. */
  async recordStatus(
    entry: { buildId: number; from: BuildStatus | null; to: BuildStatus | null; by: StatusActor; at: Date },
    tx: Sql,
  ): Promise<void> {
    await insertRow(tx, 'build_status_changes', {
      build_id: entry.buildId,
      from_status: entry.from,
      to_status: entry.to,
      changed_by_id: entry.by.userId,
      changed_by_display_name: entry.by.displayName,
      changed_by_email: entry.by.email,
      changed_at: entry.at.getTime(),
    });
  }

  async insertIcon(icon: BuildIconEntity, tx: Sql): Promise<void> {
    await insertRow(tx, 'build_icons', {
      build_id: icon.buildId,
      mime: icon.mime,
      sha256: icon.sha256,
      data_base64: icon.dataBase64,
    });
  }

  async iconOf(buildId: number): Promise<BuildIconEntity | null> {
    const statement = this.sql.prepare('builds.icon', (v: { buildId: number }) =>
      this.sql.db.selectFrom('build_icons').select(['build_id', 'mime', 'sha256', 'data_base64']).where('build_id', '=', v.buildId),
    );
    const [row] = await statement.run<IconRow>(this.db, { buildId });
    return row ? toIcon(row) : null;
  }

  /** The icon of the app's most recently uploaded build that has one. */
  async latestIconOfApp(appId: number): Promise<BuildIconEntity | null> {
    const statement = this.sql.prepare('builds.latestIcon', (v: { appId: number }) =>
      this.sql.db
        .selectFrom('build_icons as i')
        .innerJoin('builds as b', 'b.id', 'i.build_id')
        .select(['i.build_id', 'i.mime', 'i.sha256', 'i.data_base64'])
        .where('b.app_id', '=', v.appId)
        .orderBy('b.uploaded_at', 'desc')
        .orderBy('b.id', 'desc')
        .limit(sql.lit(1)),
    );
    const [row] = await statement.run<IconRow>(this.db, { appId });
    return row ? toIcon(row) : null;
  }

  /** A build's status history, oldest first, with the live account of each author where it still exists. */
  async historyOf(buildId: number): Promise<BuildStatusChangeEntity[]> {
    const statement = this.sql.prepare('builds.history', (v: { buildId: number }) =>
      this.sql.db
        .selectFrom('build_status_changes as h')
        .leftJoin('users as u', 'u.id', 'h.changed_by_id')
        .select(['h.id', 'h.from_status', 'h.to_status', 'h.changed_by_id', 'h.changed_by_display_name', 'h.changed_by_email', 'h.changed_at', 'u.id as user_id', ...JOINED_USER_COLUMNS])
        .where('h.build_id', '=', v.buildId)
        .orderBy('h.id', 'asc'),
    );
    const rows = await statement.run<HistoryRow>(this.db, { buildId });
    return rows.map((row) =>
      Object.assign(new BuildStatusChangeEntity(), {
        id: Number(row.id),
        buildId,
        fromStatus: row.from_status,
        toStatus: row.to_status,
        changedById: row.changed_by_id == null ? null : Number(row.changed_by_id),
        // The live account while it exists (a left join: null once the member was deleted).
        changedBy: row.user_id == null ? null : joinedUser(row as JoinedUserRow),
        changedByDisplayName: row.changed_by_display_name,
        changedByEmail: row.changed_by_email,
        changedAt: new Date(Number(row.changed_at)),
      }),
    );
  }

  async findById(id: number): Promise<BuildEntity | null> {
    const statement = this.sql.prepare('builds.byId', (v: { id: number }) => this.sql.db.selectFrom('builds').select(BUILD_COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<BuildRow>(this.db, { id });
    return row ? toBuild(row) : null;
  }

  /** One build with its uploader, icon, flags and provenance (the statement that reads a page of the list), or null. */
  async findListed(id: number): Promise<ListedBuild | null> {
    const [listed] = await this.listedInOrder([id]);
    return listed ?? null;
  }

  /**
   * One page of builds with their uploader, icon, flags and provenance, and the count of every match
   * (docs/decisions.md#item-3). The total comes from `build_counts` (kept by triggers) unless a search
   * term makes the rows themselves the only answer. The page's ids come first, from an index alone
   * (on a deep page SQLite steps over index entries, never rows), with the total alongside as a
   * scalar sub-select (evaluated once; one round trip less on PostgreSQL); then one statement reads
   * those rows by primary key with their upload entry, its author, the icon, the flags and the
   * provenance: lookups for the
   * page's rows only, never for skipped or sorted-out ones. Rows are read as plain values, never
   * through the query builder or the entity hydrator, which cost more than the queries.
   */
  async findPage(query: BuildPageQuery): Promise<{ items: ListedBuild[]; total: number }> {
    if (query.searchTerms || query.q || keptRowsTotal(query)) return this.findTextPage(withIndexedQ(query));
    const { db, postgres } = this.sql;
    const values = pageValues(query, postgres);
    if (values.offset >= DEEP_PAGE_OFFSET && countedTotal(query)) return this.findDeepPage(query, values);
    const ids = this.sql.prepare(`builds.page ${shapeOf(query)}`, (v: PageValues) => pageIds(db, v, query, postgres));
    const idRows = await ids.run<{ id: number | string; total: number | string }>(this.db, values);
    if (idRows.length) return { items: await this.listedInOrder(idRows.map((row) => Number(row.id))), total: Number(idRows[0].total) };
    // No row on the page: nothing matches at all on the first page, else the page is past the end
    // and the count is asked alone.
    if (query.page === 0) return { items: [], total: 0 };
    const alone = this.sql.prepare(`builds.total ${shapeOf(query)}`, (v: PageValues) => totalOf(db, v, query, postgres));
    const [row] = await alone.run<{ total: number | string }>(this.db, values);
    return { items: [], total: Number(row.total) };
  }

  /**
   * A deep page of a list whose total the maintained counts give (issue 27,
   * bench/results/2026-11-27-665943d-million.md): the total first (a few rows of build_counts),
   * then the page read from the nearer end of the index, so a page in the second half skips the
   * rows after it rather than the rows before it (the last page of a million builds reads 20 index
   * entries, not a million). A page past the end is answered from the total alone.
   */
  private async findDeepPage(query: BuildPageQuery, values: PageValues): Promise<{ items: ListedBuild[]; total: number }> {
    const { db, postgres } = this.sql;
    const shape = shapeOf(query);
    const counted = this.sql.prepare(`builds.total ${shape}`, (v: PageValues) => totalOf(db, v, query, postgres));
    const [{ total: counts }] = await counted.run<{ total: number | string }>(this.db, values);
    const total = Number(counts);
    if (values.offset >= total) return { items: [], total };
    // Which end is nearer may change with writes since the count: the statement counts again itself.
    const fromEnd = total - values.offset - values.limit < values.offset;
    // By upload time the page seeks to its day through build_day_counts (seekPageIds) from either end.
    const ids = seeksByDay(query)
      ? this.sql.prepare(`builds.seekPage ${fromEnd ? 'end' : 'start'} ${shape}`, (v: PageValues) => seekPageIds(db, v, query, postgres, fromEnd))
      : this.sql.prepare(`builds.page ${fromEnd ? 'end' : 'start'} ${shape}`, (v: PageValues) => pageIds(db, v, query, postgres, 'gather', true, fromEnd));
    const idRows = await ids.run<{ id: number | string; total: number | string }>(this.db, values);
    if (!idRows.length) return { items: [], total };
    const inOrder = idRows.map((row) => Number(row.id));
    return { items: await this.listedInOrder(fromEnd ? inOrder.reverse() : inOrder), total: Number(idRows[0].total) };
  }

  /**
   * A page of a `q` or `search` list (docs/decisions.md#issue-24-search, #issue-27-text), or of one whose
   * total only its rows answer (keptRowsTotal, #issue-42-kept-totals): first its
   * counts (kept while no write changed them, else one statement), whose exact total chooses between
   * gathering the matches from the search index and sorting them (few matches) and walking the sort
   * index, testing each build (many matches); then
   * the page's ids and its rows, as for the list. `q` under three characters has no index: its
   * page walks the sort index.
   */
  private async findTextPage(query: BuildPageQuery): Promise<{ items: ListedBuild[]; total: number }> {
    const { db, postgres } = this.sql;
    const values = pageValues(query, postgres);
    const shape = shapeOf(query);
    const counts = await this.textCountsOf(query, values, shape);
    if (counts.total === 0 || values.offset >= counts.total) return { items: [], total: counts.total };
    const mode = query.searchTerms ? searchMode(counts.total, counts.builds, values.offset + values.limit, postgres) : 'walk';
    const ids = this.sql.prepare(`builds.textPage ${mode} ${shape}`, (v: PageValues) => pageIds(db, v, query, postgres, mode, false));
    const idRows = await ids.run<{ id: number | string }>(this.db, values);
    return { items: await this.listedInOrder(idRows.map((row) => Number(row.id))), total: counts.total };
  }

  /** A text list's counts: kept (SearchTotals, under the build_list_changes value read first) or counted now. */
  private async textCountsOf(query: BuildPageQuery, values: PageValues, shape: string): Promise<TextCounts> {
    const { db, postgres } = this.sql;
    const count = async (): Promise<TextCounts> => {
      const statement = this.sql.prepare(`builds.textCounts ${shape}`, (v: PageValues) => textCounts(db, v, query, postgres));
      const [row] = await statement.run<{ builds: number | string; total: number | string }>(this.db, values);
      return { builds: Number(row.builds), total: Number(row.total) };
    };
    const key = textCountsKey(query);
    if (key === undefined) return count();
    const changes = this.sql.prepare('builds.listChanges', () => db.selectFrom('build_list_changes').select('n').where('id', '=', sql.lit(1)));
    const [row] = await changes.run<{ n: number | string }>(this.db, {});
    return this.textTotals.get(key, Number(row.n), count);
  }

  /**
   * These builds with their uploader, icon, flags and provenance, in the order given
   * (build-list.repository.ts `listed`): one statement, whatever the page. Read as arrays (TransactionRunner.selectArrays): at 100 rows the drivers' row
   * objects cost more than the statement.
   */
  private async listedInOrder(ids: number[]): Promise<ListedBuild[]> {
    if (!ids.length) return [];
    const statement = this.sql.prepare(`builds.listed ${ids.length}`, (v: number[]) => listed(this.sql.db, v, ids.length, this.sql.postgres));
    const rows = await this.transactions.selectArrays(statement.sql, statement.parameters(ids));
    const byId = new Map(rows.map((row) => [Number(row[0]), row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [listedFromValues(row)] : [];
    });
  }

  /**
   * Applies `changes` and returns the row before and after, or null when there is no such build.
   * `alongside` runs in the same transaction (the status history is written with the change).
   */
  update(
    id: number,
    change: (build: BuildEntity) => Partial<BuildEntity>,
    alongside?: (tx: Sql, before: BuildEntity, after: BuildEntity) => Promise<void>,
  ): Promise<{ before: BuildEntity; after: BuildEntity } | null> {
    const locked = this.sql.prepare('builds.byIdForUpdate', (v: { id: number }) =>
      lockedForUpdate(this.sql, this.sql.db.selectFrom('builds').select(BUILD_COLUMNS).where('id', '=', v.id)),
    );
    return this.inWriteTransaction(async (tx) => {
      const [row] = await locked.run<BuildRow>(tx, { id });
      if (!row) return null;
      const before = toBuild(row);
      const values = change(before);
      await updateById(tx, 'builds', id, fieldsAsColumns<Omit<typeof values, 'app'>>(values, BUILD_FIELD_COLUMNS));
      const after = Object.assign(new BuildEntity(), before, values);
      await alongside?.(tx, before, after);
      return { before, after };
    });
  }

  /** Each app's latest build (by upload time, then id), in one query. */
  async latestPerApp(): Promise<LatestBuild[]> {
    const statement = this.sql.prepare('builds.latestPerApp', () =>
      this.sql.db
        .selectFrom((db) => db.selectFrom('builds as b1').select('b1.app_id').distinct().as('x'))
        .innerJoin('builds as b', (join) =>
          join.on((eb) =>
            eb(
              'b.id',
              '=',
              eb.selectFrom('builds as b2').select('b2.id').whereRef('b2.app_id', '=', 'x.app_id').orderBy('b2.uploaded_at', 'desc').orderBy('b2.id', 'desc').limit(sql.lit(1)),
            ),
          ),
        )
        .select(['b.id', 'b.app_id', 'b.version_name', 'b.build_number', 'b.status_label', 'b.uploaded_at'])
        .select((eb) => [
          // The maintained counts (a few rows per app), not the builds themselves.
          eb.fn
            .coalesce(eb.selectFrom('build_counts as c').select((c) => c.fn.sum('c.n').as('n')).whereRef('c.app_id', '=', 'x.app_id'), eb.lit(0))
            .as('build_count'),
          eb
            .exists(
              eb
                .selectFrom('build_icons as i')
                .innerJoin('builds as b3', 'b3.id', 'i.build_id')
                .select((i) => i.lit(1).as('one'))
                .whereRef('b3.app_id', '=', 'x.app_id'),
            )
            .as('has_icon'),
        ]),
    );
    const rows = await statement.run<LatestRow>(this.db, {});
    return rows.map((row) => ({
      id: Number(row.id),
      appId: Number(row.app_id),
      versionName: row.version_name,
      buildNumber: row.build_number,
      statusLabel: row.status_label,
      uploadedAt: new Date(Number(row.uploaded_at)),
      buildCount: Number(row.build_count),
      hasIcon: row.has_icon === true || Number(row.has_icon) === 1,
    }));
  }

  async dueForPurge(now: Date): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    const statement = this.sql.prepare('builds.dueForPurge', (v: { now: number }) =>
      this.sql.db.selectFrom('builds').select(['id', 'file_name']).where('delete_after', '<=', v.now),
    );
    return toFiles(await statement.run<FileRow>(this.db, { now: now.getTime() }));
  }

  /** How many builds have each review status (null = none set), for the metrics gauge. */
  async countByStatus(): Promise<{ status: BuildStatus | null; count: number }[]> {
    const statement = this.sql.prepare('builds.countByStatus', () =>
      this.sql.db.selectFrom('builds as b').select((eb) => ['b.status_label as status', eb.fn.countAll().as('count')]).groupBy('b.status_label'),
    );
    const rows = await statement.run<{ status: BuildStatus | null; count: string | number }>(this.db, {});
    return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  /** Keeps the release gate's state beside the build (BuildGateStates). */
  async setGateState(buildId: number, state: BuildGateState | null): Promise<void> {
    const statement = this.sql.prepare('builds.setGateState', (v: { id: number; state: string | null }) =>
      this.sql.db.updateTable('builds').set({ gate_state: v.state }).where('id', '=', v.id),
    );
    await statement.run(this.db, { id: buildId, state });
  }

  /** The highest build id now (0 with no builds): the orphan sweep's rows phase stops there. */
  async maxId(): Promise<number> {
    const statement = this.sql.prepare('builds.maxId', () => this.sql.db.selectFrom('builds as b').select((eb) => eb.fn.max('b.id').as('max')));
    const [row] = await statement.run<{ max: number | string | null }>(this.db, {});
    return Number(row?.max ?? 0);
  }

  /**
   * The builds whose stored file is one of `fileNames` (at most FILE_NAME_SLICE), by the unique
   * index on file_name: the orphan sweep asks this for each slice of the builds folder it walks.
   */
  async withFileNames(fileNames: string[]): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    if (!fileNames.length) return [];
    if (fileNames.length > FILE_NAME_SLICE) throw new Error(`At most ${FILE_NAME_SLICE} file names at a time`);
    // One statement for every slice: a short slice is padded with its last name (a repeat matches nothing more).
    const statement = this.sql.prepare('builds.withFileNames', (v: Record<number, string>) =>
      this.sql.db.selectFrom('builds as b').select(['b.id', 'b.file_name']).where('b.file_name', 'in', Array.from({ length: FILE_NAME_SLICE }, (_, i) => v[i])),
    );
    const padded = Array.from({ length: FILE_NAME_SLICE }, (_, i) => fileNames[Math.min(i, fileNames.length - 1)]);
    return toFiles(await statement.run<FileRow>(this.db, padded));
  }

  /** How many builds have an id in (afterId, upToId], by the primary key. */
  async countInIdRange(afterId: number, upToId: number): Promise<number> {
    const statement = this.sql.prepare('builds.countInIdRange', (v: { after: number; upTo: number }) =>
      this.sql.db.selectFrom('builds as b').select((eb) => eb.fn.countAll().as('n')).where('b.id', '>', v.after).where('b.id', '<=', v.upTo),
    );
    const [row] = await statement.run<{ n: number | string }>(this.db, { after: afterId, upTo: upToId });
    return Number(row.n);
  }

  /** The builds with an id in (afterId, upToId], with their stored file's name. */
  async filesInIdRange(afterId: number, upToId: number): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    const statement = this.sql.prepare('builds.filesInIdRange', (v: { after: number; upTo: number }) =>
      this.sql.db.selectFrom('builds as b').select(['b.id', 'b.file_name']).where('b.id', '>', v.after).where('b.id', '<=', v.upTo).orderBy('b.id'),
    );
    return toFiles(await statement.run<FileRow>(this.db, { after: afterId, upTo: upToId }));
  }

  /**
   * Deletes every build of an app (joining the caller's transaction); returns what was deleted
   * (RETURNING: the rows the DELETE itself removed, on both dialects).
   */
  deleteByApp(appId: number): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    const statement = this.sql.prepare('builds.deleteByApp', (v: { appId: number }) =>
      this.sql.db.deleteFrom('builds').where('app_id', '=', v.appId).returning(['id', 'file_name']),
    );
    return this.inWriteTransaction(async (tx) => toFiles(await statement.run<FileRow>(tx, { appId })));
  }

  /** Deletes these rows in one transaction (IN_LIST_MAX ids per statement); returns the ones that were still there. */
  deleteByIds(ids: number[]): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.inWriteTransaction(async (tx) => {
      const deleted: FileRow[] = [];
      for (const list of inLists(ids)) {
        const statement = this.sql.prepare(`builds.deleteByIds ${list.length}`, (v: number[]) =>
          this.sql.db
            .deleteFrom('builds')
            .where(
              'id',
              'in',
              list.map((_, i) => v[i]),
            )
            .returning(['id', 'file_name']),
        );
        deleted.push(...(await statement.run<FileRow>(tx, list)));
      }
      return toFiles(deleted);
    });
  }
}

interface IconRow {
  build_id: number | string;
  mime: string;
  sha256: string;
  data_base64: string;
}

function toIcon(row: IconRow): BuildIconEntity {
  return Object.assign(new BuildIconEntity(), { buildId: Number(row.build_id), mime: row.mime, sha256: row.sha256, dataBase64: row.data_base64 });
}

/** A status history entry with its author's live account (JOINED_USER_COLUMNS, null columns when deleted). */
interface HistoryRow extends Omit<JoinedUserRow, 'user_id'> {
  id: number | string;
  from_status: BuildStatus | null;
  to_status: BuildStatus | null;
  changed_by_id: number | string | null;
  changed_by_display_name: string | null;
  changed_by_email: string;
  changed_at: number | string;
  user_id: number | string | null;
}

interface FileRow {
  id: number | string;
  file_name: string;
}

const toFiles = (rows: FileRow[]): Pick<BuildEntity, 'id' | 'fileName'>[] => rows.map((r) => ({ id: Number(r.id), fileName: r.file_name }));

/** The tables whose rows are written by one prepared INSERT (the upload's, in its transaction). */
type InsertedTable = 'builds' | 'build_status_changes' | 'build_icons' | 'build_contents' | 'build_flags' | 'build_provenance';

/**
 * One INSERT of `row` (column → value) into `table`, prepared once per table and set of columns;
 * a build's insert returns its id.
 */
export function insertRow<T extends InsertedTable>(tx: Sql, table: T, row: Insertable<Database[T]>): Promise<{ id: number | string }[]> {
  const builder = QueryBuilder.for(tx.dialect);
  const columns = Object.keys(row) as (keyof typeof row & string)[];
  const statement = builder.prepare(`insert ${table} ${columns.join(',')}`, (v: Insertable<Database[T]>) => {
    const insert = builder.db.insertInto(table).values(Object.fromEntries(columns.map((column) => [column, v[column]])) as never);
    return table === 'builds' ? insert.returning('id' as never) : insert;
  });
  return statement.run(tx, row);
}
