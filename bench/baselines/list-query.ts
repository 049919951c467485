/**
 * GET /api/v1/builds as a hand-written server answers it (the floor of bench/million and
 * test/bench/list-floor.e2e-spec.ts, issue 42 item 3), whichever database: plain node:http and the driver, no
 * framework, but the same work as the relay for every variant the relay answers. The query
 * parameters and their checks (ListBuildsQuery's), the relay's own statements for each variant
 * (build-list.repository.ts, compiled by its QueryBuilder, chosen as BuildsRepository.findPage
 * chooses them: the plain page, the deep page from the nearer end or by day, a text list's kept
 * counts and its gather/walk/scan mode), the bearer token's hash, and the rows written straight
 * into the relay's JSON (toBuildResponse's fields, in its order). The soak's floor and the raw list
 * baseline (raw-list-query.ts) share the PAT check and `send`.
 */
import { createHash } from 'node:crypto';
import { createServer, Server, ServerResponse } from 'node:http';
import type { Compilable } from 'kysely';
import { countedTotal, keptRowsTotal, listed, pageIds, PageValues, pageValues, searchMode, seekPageIds, seeksByDay, shapeOf, textCounts, totalOf } from '../../src/builds/build-list.repository';
import { textCountsKey, withIndexedQ } from '../../src/builds/build-search.repository';
import type { BuildPageQuery, BuildSortField, ListedStatus } from '../../src/builds/build-page';
import { BUILD_STATUSES } from '../../src/builds/build-status';
import { BUILD_GATE_STATES, type BuildGateState } from '../../src/builds/build.entity';
import { SearchTotals, type TextCounts } from '../../src/builds/search-totals';
import { PLATFORMS, type Platform } from '../../src/app-catalogue/platform';
import { QueryBuilder } from '../../src/database/query-builder/query-builder';

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** sha256 (hex) of the bearer token, or null when the header carries none. */
export function bearerHash(header: string | undefined): string | null {
  const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? createHash('sha256').update(match[1]).digest('hex') : null;
}

export interface TokenRow {
  id: number;
  scope: string;
  expires_at: number | string | null;
  last_used_at: number | string;
  created_at: number | string;
}

/** The token row and its owner's, by hash (the owner must exist). */
export const TOKEN_SQL = (placeholder: string) =>
  `SELECT t.id, t.scope, t.expires_at, t.last_used_at, t.created_at FROM personal_access_tokens t
   JOIN users u ON u.id = t.user_id WHERE t.token_hash = ${placeholder}`;

/** What the floor's database does for the list (synchronous or not); statements come compiled in the dialect's form. */
export interface ListDatabase {
  dialect: 'sqlite' | 'postgres';
  token(hash: string): TokenRow | undefined | Promise<TokenRow | undefined>;
  touchToken(id: number, now: number): unknown;
  /** A statement's rows as objects. */
  rows<T>(sql: string, args: unknown[]): T[] | Promise<T[]>;
  /** A statement's rows as arrays (the page's builds, read as the relay reads them: TransactionRunner.selectArrays). */
  arrays(sql: string, args: unknown[]): unknown[][] | Promise<unknown[][]>;
}

/** The PAT check: 401 without a live token, 403 without builds:write; the last use recorded at most once a minute. */
export async function authenticate(db: Pick<ListDatabase, 'token' | 'touchToken'>, header: string | undefined): Promise<number> {
  const hash = bearerHash(header);
  const token = hash === null ? undefined : await db.token(hash);
  const now = Date.now();
  if (!token || (token.expires_at !== null && Number(token.expires_at) <= now)) return 401;
  if (!token.scope.split(',').includes('builds:write')) return 403;
  if (Number(token.last_used_at) === Number(token.created_at) || now - Number(token.last_used_at) >= 60_000) await db.touchToken(token.id, now);
  return 200;
}

/** GET /api/v1/builds on `port` (127.0.0.1; 0 picks one), answered from `db`; anything else 404. Resolves once it listens. */
export function serveList(db: ListDatabase, port: number): Promise<Server> {
  const list = new FloorList(db);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || url.pathname !== '/api/v1/builds') return send(res, 404, { error: 'Not found' });
    (async () => {
      const auth = await authenticate(db, req.headers.authorization);
      if (auth !== 200) return send(res, auth, { error: auth === 401 ? 'Unauthorized' : 'Forbidden' });
      const query = pageQuery(url.searchParams);
      if (typeof query === 'string') return send(res, 400, { error: query });
      const page = query === EMPTY ? { rows: [], total: 0 } : await list.page(query);
      send(res, 200, { items: page.rows.map(listItem), total: page.total });
    })().catch((err: Error) => send(res, 500, { error: err.message }));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

// The relay's limits (dto/list-builds.query.ts, upload-build.dto.ts, parse-id.pipe.ts), written out:
// importing the DTOs would load class-validator and Swagger into a server that uses neither.
const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;
const MAX_SEARCH_LENGTH = 100;
const BRANCH_MAX = 255;
const MAX_ID = 2_147_483_647;
const SORTS: BuildSortField[] = ['uploaded_at', 'version_name', 'status_label'];
const LIST_STATUSES: ListedStatus[] = [...BUILD_STATUSES, 'untriaged'];
/** An app id no row can have: the relay answers it without asking the database (BuildQueryService.list). */
const EMPTY = Symbol('empty');

/** GET /builds' parameters as ListBuildsQuery and BuildQueryService.list read them, or the 400 message. */
export function pageQuery(search: URLSearchParams): BuildPageQuery | typeof EMPTY | string {
  const get = (name: string) => search.get(name) ?? undefined;
  const integer = (name: string, min: number, max: number): number | undefined | string => {
    const value = get(name);
    if (value === undefined) return undefined;
    return /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max ? Number(value) : `${name} must be an integer from ${min} to ${max}`;
  };
  const page = integer('page', 0, 1_000_000_000);
  const limit = integer('limit', 1, Number.MAX_SAFE_INTEGER);
  const pullRequest = integer('pull_request', 1, MAX_ID);
  const appIdText = get('app_id');
  const [q, searchText, platform, status, sort = 'uploaded_at', dir = 'desc', flagged, branch, commit, gate] = [
    'q', 'search', 'platform', 'status', 'sort', 'dir', 'flagged', 'branch', 'commit', 'gate',
  ].map(get);
  for (const bad of [page, limit, pullRequest]) if (typeof bad === 'string') return bad;
  if (appIdText !== undefined && !/^[1-9]\d*$/.test(appIdText)) return 'app_id must be a positive integer';
  if ((q?.length ?? 0) > 200) return 'q must be at most 200 characters';
  const searchTrimmed = searchText?.trim();
  if ((searchTrimmed?.length ?? 0) > MAX_SEARCH_LENGTH) return `search must be at most ${MAX_SEARCH_LENGTH} characters`;
  if (platform !== undefined && !PLATFORMS.includes(platform as Platform)) return 'platform must be one of ios, android';
  if (status !== undefined && !LIST_STATUSES.includes(status as ListedStatus)) return 'bad status';
  if (!SORTS.includes(sort as BuildSortField) || (dir !== 'asc' && dir !== 'desc')) return 'bad sort';
  if (flagged !== undefined && flagged !== 'true') return 'flagged must be true';
  if ((branch?.length ?? 0) > BRANCH_MAX) return 'branch is too long';
  if (commit !== undefined && !/^[0-9a-fA-F]{4,64}$/.test(commit)) return 'commit must be 4 to 64 hexadecimal characters';
  if (gate !== undefined && !BUILD_GATE_STATES.includes(gate as BuildGateState)) return 'bad gate';
  if (appIdText !== undefined && Number(appIdText) > MAX_ID) return EMPTY;
  const terms = searchTrimmed?.split(/\s+/).filter(Boolean);
  return {
    page: (page as number | undefined) ?? 0,
    limit: Math.min((limit as number | undefined) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
    q: q?.trim() || undefined,
    searchTerms: terms?.length ? terms : undefined,
    platform: platform as Platform | undefined,
    status: status as ListedStatus | undefined,
    appId: appIdText === undefined ? undefined : Number(appIdText),
    flagged: flagged === 'true',
    branch: branch || undefined,
    commit: commit?.toLowerCase(),
    pullRequest: pullRequest as number | undefined,
    gate: gate as BuildGateState | undefined,
    sort: sort as BuildSortField,
    dir,
  };
}

/** From this offset the relay counts a list's matches first and reads from the nearer end (BuildsRepository's DEEP_PAGE_OFFSET). */
const DEEP_PAGE_OFFSET = 2_000;

interface Page {
  /** The page's builds as ListedValues arrays (build-list.repository.ts `listed`), in the list's order. */
  rows: unknown[][];
  total: number;
}

/** BuildsRepository.findPage's choices, statement for statement, run on the driver directly. */
export class FloorList {
  private readonly sql: QueryBuilder;
  private readonly textTotals = new SearchTotals();

  constructor(private readonly db: ListDatabase) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  private get postgres(): boolean {
    return this.sql.postgres;
  }

  page(asked: BuildPageQuery): Promise<Page> {
    if (asked.searchTerms || asked.q || keptRowsTotal(asked)) return this.textPage(withIndexedQ(asked));
    const values = pageValues(asked, this.postgres);
    if (values.offset >= DEEP_PAGE_OFFSET && countedTotal(asked)) return this.deepPage(asked, values);
    return this.shallowPage(asked, values);
  }

  private async shallowPage(query: BuildPageQuery, values: PageValues): Promise<Page> {
    const { db, postgres } = this.sql;
    const ids = await this.run<{ id: number | string; total: number | string }>(`builds.page ${shapeOf(query)}`, (v) => pageIds(db, v, query, postgres), values);
    if (ids.length) return { rows: await this.listedInOrder(ids.map((row) => Number(row.id))), total: Number(ids[0].total) };
    if (query.page === 0) return { rows: [], total: 0 };
    const [row] = await this.run<{ total: number | string }>(`builds.total ${shapeOf(query)}`, (v) => totalOf(db, v, query, postgres), values);
    return { rows: [], total: Number(row.total) };
  }

  private async deepPage(query: BuildPageQuery, values: PageValues): Promise<Page> {
    const { db, postgres } = this.sql;
    const shape = shapeOf(query);
    const [{ total: counts }] = await this.run<{ total: number | string }>(`builds.total ${shape}`, (v) => totalOf(db, v, query, postgres), values);
    const total = Number(counts);
    if (values.offset >= total) return { rows: [], total };
    const fromEnd = total - values.offset - values.limit < values.offset;
    const ids = seeksByDay(query)
      ? await this.run<{ id: number | string; total: number | string }>(`builds.seekPage ${fromEnd ? 'end' : 'start'} ${shape}`, (v) => seekPageIds(db, v, query, postgres, fromEnd), values)
      : await this.run<{ id: number | string; total: number | string }>(`builds.page ${fromEnd ? 'end' : 'start'} ${shape}`, (v) => pageIds(db, v, query, postgres, 'gather', true, fromEnd), values);
    if (!ids.length) return { rows: [], total };
    const inOrder = ids.map((row) => Number(row.id));
    return { rows: await this.listedInOrder(fromEnd ? inOrder.reverse() : inOrder), total: Number(ids[0].total) };
  }

  private async textPage(query: BuildPageQuery): Promise<Page> {
    const { db, postgres } = this.sql;
    const values = pageValues(query, postgres);
    const shape = shapeOf(query);
    const counts = await this.textCounts(query, values, shape);
    if (counts.total === 0 || values.offset >= counts.total) return { rows: [], total: counts.total };
    const mode = query.searchTerms ? searchMode(counts.total, counts.builds, values.offset + values.limit, postgres) : 'walk';
    const ids = await this.run<{ id: number | string }>(`builds.textPage ${mode} ${shape}`, (v) => pageIds(db, v, query, postgres, mode, false), values);
    return { rows: await this.listedInOrder(ids.map((row) => Number(row.id))), total: counts.total };
  }

  private async textCounts(query: BuildPageQuery, values: PageValues, shape: string): Promise<TextCounts> {
    const { db } = this.sql;
    const count = async (): Promise<TextCounts> => {
      const [row] = await this.run<{ builds: number | string; total: number | string }>(`builds.textCounts ${shape}`, (v) => textCounts(db, v, query, this.postgres), values);
      return { builds: Number(row.builds), total: Number(row.total) };
    };
    const key = textCountsKey(query);
    if (key === undefined) return count();
    const [row] = await this.db.rows<{ n: number | string }>('SELECT n FROM build_list_changes WHERE id = 1', []);
    return this.textTotals.get(key, Number(row.n), count);
  }

  private async listedInOrder(ids: number[]): Promise<unknown[][]> {
    if (!ids.length) return [];
    const statement = this.sql.prepare(`floor builds.listed ${ids.length}`, (v: number[]) => listed(this.sql.db, v, ids.length, this.postgres));
    const rows = await this.db.arrays(statement.sql, statement.parameters(ids));
    const byId = new Map(rows.map((row) => [Number(row[0]), row]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  /**
   * The statement the relay prepares under `key`, run with these values. Kept under a key of the
   * floor's own: a relay in the same process (test/bench/list-floor.e2e-spec.ts) shares the builder's cache.
   */
  private async run<R>(key: string, build: (v: PageValues) => Compilable<unknown>, values: PageValues): Promise<R[]> {
    const statement = this.sql.prepare(`floor ${key}`, build);
    return this.db.rows<R>(statement.sql, statement.parameters(values));
  }
}

const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());

/**
 * One item of the list from its ListedValues (the relay's order of `listed`'s columns): the relay's
 * Build (toBuildResponse), field for field and in its order, without the Date and entity objects
 * the relay maps through.
 */
export function listItem(values: unknown[]) {
  const [id, appId, name, versionName, buildNumber, versionLabel, statusLabel, platform, bundleId, uploadedAt, completedAt, deleteAfter,
    uploadId, uploaderId, keptName, keptEmail, userName, userEmail, hasIcon, flags,
    provenanceId, commit, branch, repository, pullRequest, ciUrl, changelog] = values as (string | null)[];
  const live = userEmail != null;
  const shown = uploadId == null ? null : (live ? userName : keptName) || (live ? userEmail : keptEmail)!.split('@')[0];
  return {
    id: Number(id),
    app_id: Number(appId),
    name,
    version_name: versionName,
    build_number: buildNumber,
    version_label: versionLabel,
    status_label: statusLabel,
    platform,
    bundle_id: bundleId,
    uploaded_at: iso(uploadedAt),
    completed_at: iso(completedAt),
    delete_after: iso(deleteAfter),
    uploaded_by: shown,
    uploaded_by_id: uploadId != null && live ? Number(uploaderId) : null,
    icon_url: hasIcon ? `/api/v1/builds/${Number(id)}/icon` : null,
    flags: flags ? (JSON.parse(flags) as unknown[]) : [],
    provenance:
      provenanceId == null
        ? null
        : { commit, branch, repository, pull_request: pullRequest == null ? null : Number(pullRequest), ci_url: ciUrl, changelog },
  };
}
