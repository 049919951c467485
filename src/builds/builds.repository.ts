import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { SqlParameters } from '../database/sql-parameters';
import { AtOrBefore } from '../database/timestamp.column';
import { forUpdate } from '../database/row-lock';
import { TransactionRunner } from '../database/transaction-runner';
import { BuildEntity } from './build.entity';
import type { BuildStatus, Platform, StatusActor } from './build-status';
import { BuildStatusChangeEntity } from './build-status-change.entity';
import { BuildIconEntity } from './build-icon.entity';
import { asciiLowerCase, escapeLike, searchCondition } from './build-search';

export type BuildSortField = 'uploaded_at' | 'version_name' | 'status_label';
/** A status filter of the list: one of the four, or `untriaged` (no status set). */
export type ListedStatus = BuildStatus | 'untriaged';

export interface BuildPageQuery {
  page: number;
  limit: number;
  q?: string;
  /** `search`'s terms, each a substring of some field (build-search.ts). */
  searchTerms?: string[];
  platform?: Platform;
  status?: ListedStatus;
  appId?: number;
  /** Beyond the spec: only builds with a build_flags row. */
  flagged?: boolean;
  /** Beyond the spec: builds whose provenance names this branch (exact). */
  branch?: string;
  /** Beyond the spec: builds whose provenance commit starts with this (lower-case hex). */
  commit?: string;
  sort: BuildSortField;
  dir: 'asc' | 'desc';
}

/**
 * The summary of an app's latest build that GET /apps shows, with the app's build count and
 * whether any of its builds has a launcher icon (GET /apps/:id/icon answers 404 otherwise).
 */
export type LatestBuild = Pick<BuildEntity, 'id' | 'appId' | 'versionName' | 'buildNumber' | 'statusLabel' | 'uploadedAt'> & {
  buildCount: number;
  hasIcon: boolean;
};

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
 * The build fields GET /builds and GET /builds/:id show: not the stored file's name and size,
 * which a page would read 20 times for nothing.
 */
export type ShownBuild = Omit<BuildEntity, 'app' | 'fileName' | 'originalName' | 'fileSize'>;

const SHOWN_COLUMNS = [
  'id',
  'app_id',
  'name',
  'version_name',
  'build_number',
  'version_label',
  'status_label',
  'platform',
  'bundle_id',
  'uploaded_at',
  'completed_at',
  'delete_after',
]
  .map((column) => `b.${column}`)
  .join(', ');

/**
 * Who uploaded a build (the author of its first status-history entry): the live account while it
 * exists (a renamed member shows the new name), else the name and e-mail the entry kept; `id` is
 * null once the account is deleted.
 */
export interface Uploader {
  id: number | null;
  displayName: string | null;
  email: string;
}

/**
 * A build as GET /builds and GET /builds/:id show it: beyond the spec's fields, who uploaded it
 * (null for builds older than the status history) and whether it has an icon (docs/builds.md
 * "Uploader and icon in the build").
 */
export interface ListedBuild {
  build: ShownBuild;
  uploader: Uploader | null;
  hasIcon: boolean;
  /** The flags stored at upload (JSON text of ComparisonFlag[]), or null when it has none. */
  flags: string | null;
}

/**
 * A builds row with its uploader and icon, as an array in LISTED_COLUMNS' order (PostgreSQL gives
 * bigint columns as strings, SQLite a boolean as 0 or 1).
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
];

/** The build, its upload entry and that entry's live account, and whether it has an icon. */
const LISTED_COLUMNS = `${SHOWN_COLUMNS}, s.id AS upload_id, s.changed_by_id AS uploader_id,
  s.changed_by_display_name AS kept_name, s.changed_by_email AS kept_email, u.display_name AS user_name,
  u.email AS user_email, EXISTS (SELECT 1 FROM build_icons i WHERE i.build_id = b.id) AS has_icon,
  (SELECT f.flags FROM build_flags f WHERE f.build_id = b.id) AS flags`;

/** Joins for LISTED_COLUMNS onto `builds b`: the first history entry by the build_id index, its author by primary key. */
const LISTED_JOINS = ` LEFT JOIN build_status_changes s ON s.id = (SELECT MIN(f.id) FROM build_status_changes f WHERE f.build_id = b.id)
  LEFT JOIN users u ON u.id = s.changed_by_id`;

function listedFromValues(values: unknown[]): ListedBuild {
  const [id, appId, name, versionName, buildNumber, versionLabel, statusLabel, platform, bundleId, uploadedAt, completedAt, deleteAfter,
    uploadId, uploaderId, keptName, keptEmail, userName, userEmail, hasIcon, flags] = values as ListedValues;
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
  return { build, uploader, hasIcon: Boolean(hasIcon), flags };
}

/** Builds' rows. Multi-step writes go through the shared TransactionRunner (one at a time on SQLite). */
@Injectable()
export class BuildsRepository {
  constructor(
    @InjectRepository(BuildEntity) private readonly builds: Repository<BuildEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Runs `work` in a transaction of the shared runner. */
  inWriteTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.transactions.run(work);
  }

  /**
   * The upload's three inserts are hand-written: `save()` and `insert()` build each statement
   * through TypeORM's query builder (entity metadata walk, value maps, RETURNING handling), which
   * was the largest single part of a small upload's CPU. Values are bound as the columns store
   * them (timestamps as epoch milliseconds, see timestamp.column.ts).
   */
  async insert(values: Omit<BuildEntity, 'id' | 'app'>, manager: EntityManager): Promise<BuildEntity> {
    const rows: { id: number | string }[] = await insertRow(manager, 'builds', {
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
    }, 'id');
    return Object.assign(new BuildEntity(), values, { id: Number(rows[0].id) });
  }

  /** Appends one entry to a build's status history, inside the caller's transaction. */
  async recordStatus(
    entry: { buildId: number; from: BuildStatus | null; to: BuildStatus | null; by: StatusActor; at: Date },
    manager: EntityManager,
  ): Promise<void> {
    await insertRow(manager, 'build_status_changes', {
      build_id: entry.buildId,
      from_status: entry.from,
      to_status: entry.to,
      changed_by_id: entry.by.userId,
      changed_by_display_name: entry.by.displayName,
      changed_by_email: entry.by.email,
      changed_at: entry.at.getTime(),
    });
  }

  async insertIcon(icon: BuildIconEntity, manager: EntityManager): Promise<void> {
    await insertRow(manager, 'build_icons', {
      build_id: icon.buildId,
      mime: icon.mime,
      sha256: icon.sha256,
      data_base64: icon.dataBase64,
    });
  }

  iconOf(buildId: number): Promise<BuildIconEntity | null> {
    return this.builds.manager.getRepository(BuildIconEntity).findOneBy({ buildId });
  }

  /** The icon of the app's most recently uploaded build that has one. */
  latestIconOfApp(appId: number): Promise<BuildIconEntity | null> {
    return this.builds.manager
      .getRepository(BuildIconEntity)
      .createQueryBuilder('i')
      .innerJoin(BuildEntity, 'b', 'b.id = i.build_id')
      .where('b.app_id = :appId', { appId })
      .orderBy('b.uploaded_at', 'DESC')
      .addOrderBy('b.id', 'DESC')
      .getOne();
  }

  /** A build's status history, oldest first, with the live account of each author where it still exists. */
  historyOf(buildId: number): Promise<BuildStatusChangeEntity[]> {
    return this.builds.manager.getRepository(BuildStatusChangeEntity).find({
      where: { buildId },
      relations: { changedBy: true },
      order: { id: 'ASC' },
    });
  }

  findById(id: number): Promise<BuildEntity | null> {
    return this.builds.findOne({ where: { id } });
  }

  /** One build with its uploader and icon (the statement that reads a page of the list), or null. */
  async findListed(id: number): Promise<ListedBuild | null> {
    const [listed] = await this.listedInOrder([id]);
    return listed ?? null;
  }

  /**
   * One page of builds with their uploader and icon, and the count of every match
   * (docs/decisions.md#item-3). The total comes from `build_counts` (kept by triggers) unless a search
   * term makes the rows themselves the only answer. The page's ids come first, from an index alone
   * (on a deep page SQLite steps over index entries, never rows), with the total alongside as a
   * scalar sub-select (evaluated once; one round trip less on PostgreSQL); then one statement reads
   * those rows by primary key with their upload entry, its author and the icon: lookups for the
   * page's rows only, never for skipped or sorted-out ones. Rows are read as plain values, never
   * through the query builder or the entity hydrator, which cost more than the queries.
   */
  async findPage(query: BuildPageQuery): Promise<{ items: ListedBuild[]; total: number }> {
    const sql = SqlParameters.for(this.builds.manager);
    // Placeholders are added in the order they appear in the text (SQLite's `?` are positional).
    // A search's matches come from its own index, never from walking the sort column's index: they
    // are gathered once (also the count, which needs them all anyway), then the page is sorted out of
    // them. Left to itself PostgreSQL's generic plan walks the sort index and filters each row, which
    // reads every build for a rare term (test/builds/list-plans).
    const searched = Boolean(query.searchTerms);
    const total = searched ? '' : totalOf(query, sql);
    const filter = whereOf(query, sql);
    const dir = query.dir === 'asc' ? 'ASC' : 'DESC';
    // Unset values sort last either way, on SQLite and PostgreSQL alike; id breaks ties so pages are
    // stable. uploaded_at is never null, so it needs no NULLS clause (and keeps to its index).
    const nulls = query.sort === 'uploaded_at' ? '' : ' NULLS LAST';
    const page = ` LIMIT ${sql.add(query.limit)} OFFSET ${sql.add(query.page * query.limit)}`;
    const idRows: { id: number | string; total: number | string }[] = await this.builds.query(
      searched
        ? `WITH m AS MATERIALIZED (SELECT b.id, b.${query.sort} AS k FROM builds b${filter})
           SELECT m.id, (SELECT COUNT(*) FROM m) AS total FROM m ORDER BY m.k ${dir}${nulls}, m.id ${dir}${page}`
        : `SELECT b.id, (${total}) AS total FROM builds b${filter} ORDER BY b.${query.sort} ${dir}${nulls}, b.id ${dir}${page}`,
      sql.values(),
    );
    if (idRows.length) return { items: await this.listedInOrder(idRows.map((row) => Number(row.id))), total: Number(idRows[0].total) };
    // No row on the page: nothing matches at all on the first page, else the page is past the end
    // and the count is asked alone.
    if (query.page === 0) return { items: [], total: 0 };
    const alone = SqlParameters.for(this.builds.manager);
    const [row] = await this.builds.query(totalOf(query, alone), alone.values());
    return { items: [], total: Number(row.total) };
  }

  /**
   * These builds with their uploader and icon, in the order given. No ORDER BY: the ids already
   * are the page's order, and sorting in SQL would be a sort step per request (test/builds/list-plans).
   * Read as arrays (TransactionRunner.selectArrays): at 100 rows the drivers' row objects cost
   * more than the statement.
   */
  private async listedInOrder(ids: number[]): Promise<ListedBuild[]> {
    if (!ids.length) return [];
    const sql = SqlParameters.for(this.builds.manager);
    const rows = await this.transactions.selectArrays(
      `SELECT ${LISTED_COLUMNS} FROM builds b${LISTED_JOINS} WHERE b.id IN (${ids.map((id) => sql.add(id)).join(', ')})`,
      sql.values(),
    );
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
    alongside?: (manager: EntityManager, before: BuildEntity, after: BuildEntity) => Promise<void>,
  ): Promise<{ before: BuildEntity; after: BuildEntity } | null> {
    return this.inWriteTransaction(async (manager) => {
      const repo = manager.getRepository(BuildEntity);
      const before = await repo.findOne({ where: { id }, ...forUpdate(manager) });
      if (!before) return null;
      const values = change(before);
      if (Object.keys(values).length) await repo.update({ id }, values);
      const after = Object.assign(new BuildEntity(), before, values);
      await alongside?.(manager, before, after);
      return { before, after };
    });
  }

  /** Each app's latest build (by upload time, then id), in one query. */
  async latestPerApp(): Promise<LatestBuild[]> {
    const latestId = this.builds
      .createQueryBuilder()
      .subQuery()
      .select('b2.id')
      .from(BuildEntity, 'b2')
      .where('b2.app_id = x.app_id')
      .orderBy('b2.uploaded_at', 'DESC')
      .addOrderBy('b2.id', 'DESC')
      .limit(1)
      .getQuery();
    const rows = await this.builds.manager
      .createQueryBuilder()
      .from((qb) => qb.select('DISTINCT b1.app_id', 'app_id').from(BuildEntity, 'b1'), 'x')
      .innerJoin(BuildEntity, 'b', `b.id = ${latestId}`)
      .select([
        'b.id AS id',
        'b.app_id AS app_id',
        'b.version_name AS version_name',
        'b.build_number AS build_number',
        'b.status_label AS status_label',
        'b.uploaded_at AS uploaded_at',
        // The maintained counts (a few rows per app), not the builds themselves.
        '(SELECT COALESCE(SUM(c.n), 0) FROM build_counts c WHERE c.app_id = x.app_id) AS build_count',
        'EXISTS (SELECT 1 FROM build_icons i INNER JOIN builds b3 ON b3.id = i.build_id WHERE b3.app_id = x.app_id) AS has_icon',
      ])
      .getRawMany<LatestRow>();
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

  dueForPurge(now: Date): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    return this.builds.find({ where: { deleteAfter: AtOrBefore(now) }, select: { id: true, fileName: true } });
  }

  /** Every build's id and stored file name, as plain rows (the orphan sweep reads all of them). */
  /** How many builds have each review status (null = none set), for the metrics gauge. */
  async countByStatus(): Promise<{ status: BuildStatus | null; count: number }[]> {
    const rows = await this.builds
      .createQueryBuilder('b')
      .select('b.status_label', 'status')
      .addSelect('COUNT(*)', 'count')
      .groupBy('b.status_label')
      .getRawMany<{ status: BuildStatus | null; count: string | number }>();
    return rows.map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  async allFiles(): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    const rows = await this.builds
      .createQueryBuilder('b')
      .select('b.id', 'id')
      .addSelect('b.file_name', 'fileName')
      .getRawMany<{ id: number | string; fileName: string }>();
    return rows.map((r) => ({ id: Number(r.id), fileName: r.fileName }));
  }

  /** Deletes every build of an app (joining the caller's transaction); returns what was deleted. */
  deleteByApp(appId: number): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    return this.inWriteTransaction(async (manager) => {
      const repo = manager.getRepository(BuildEntity);
      const builds = await repo.find({ where: { appId }, select: { id: true, fileName: true } });
      if (builds.length) await repo.delete({ appId });
      return builds;
    });
  }

  /** Deletes these rows in one transaction; returns the ones that were still there. */
  deleteByIds(ids: number[]): Promise<Pick<BuildEntity, 'id' | 'fileName'>[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.inWriteTransaction(async (manager) => {
      const repo = manager.getRepository(BuildEntity);
      const present = await repo.find({ where: { id: In(ids) }, select: { id: true, fileName: true } });
      if (present.length) await repo.delete({ id: In(present.map((b) => b.id)) });
      return present;
    });
  }
}

/** The statement that counts every match: the maintained counts, or the rows themselves for a search term. */
function totalOf(query: BuildPageQuery, sql: SqlParameters): string {
  // Flagged builds are counted from their own table: as cheap as they are few.
  if (query.flagged) return `SELECT COUNT(*) AS total FROM build_flags g JOIN builds b ON b.id = g.build_id${whereOf(query, sql)}`;
  if (query.q || query.searchTerms || query.branch !== undefined || query.commit) return `SELECT COUNT(*) AS total FROM builds b${whereOf(query, sql)}`;
  const counted: string[] = [];
  if (query.platform) counted.push(`c.platform = ${sql.add(query.platform)}`);
  // build_counts keeps an unset status under ''.
  if (query.status) counted.push(`c.status_key = ${sql.add(query.status === 'untriaged' ? '' : query.status)}`);
  if (query.appId !== undefined) counted.push(`c.app_id = ${sql.add(query.appId)}`);
  return `SELECT COALESCE(SUM(c.n), 0) AS total FROM build_counts c${counted.length ? ` WHERE ${counted.join(' AND ')}` : ''}`;
}

/** The list's filters on `builds b`, as a WHERE clause (or nothing), its values added to `sql`. */
function whereOf(query: BuildPageQuery, sql: SqlParameters): string {
  const where: string[] = [];
  // LOWER() folds ASCII letters only on SQLite (and on PostgreSQL's COLLATE "C" column): fold the term the same way.
  if (query.q) where.push(`LOWER(b.version_name) LIKE ${sql.add(`%${escapeLike(asciiLowerCase(query.q))}%`)} ESCAPE '\\'`);
  if (query.searchTerms) where.push(searchCondition(query.searchTerms, sql, sql.postgres));
  if (query.platform) where.push(`b.platform = ${sql.add(query.platform)}`);
  if (query.status === 'untriaged') where.push('b.status_label IS NULL');
  else if (query.status) where.push(`b.status_label = ${sql.add(query.status)}`);
  if (query.appId !== undefined) where.push(`b.app_id = ${sql.add(query.appId)}`);
  // A probe per row of the list's index walk (not `IN (…)`, which would sort the flagged builds).
  if (query.flagged) where.push('EXISTS (SELECT 1 FROM build_flags f WHERE f.build_id = b.id)');
  // Provenance (a row per build that has any): probed by primary key, like the flags.
  if (query.branch !== undefined) where.push(`EXISTS (SELECT 1 FROM build_provenance p WHERE p.build_id = b.id AND p.branch = ${sql.add(query.branch)})`);
  if (query.commit) {
    where.push(`EXISTS (SELECT 1 FROM build_provenance p WHERE p.build_id = b.id AND p.commit_sha LIKE ${sql.add(`${query.commit}%`)})`);
  }
  return where.length ? ` WHERE ${where.join(' AND ')}` : '';
}

/** One INSERT of `row` (column → value) into `table`, returning the `returning` column's rows when named. */
export function insertRow<T>(manager: EntityManager, table: string, row: Record<string, unknown>, returning?: string): Promise<T> {
  const sql = SqlParameters.for(manager);
  const columns = Object.keys(row);
  const placeholders = columns.map((column) => sql.add(row[column]));
  const tail = returning ? ` RETURNING ${returning}` : '';
  return manager.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})${tail}`, sql.values());
}
