/**
 * GET /api/v1/builds as a careful hand-written server would read it with its own, simpler SQL (the
 * raw baseline of bench/list and bench/list-postgres, issue 42 item 3's "outside list benchmark"):
 * the query parameters of spec §4 and their checks, one page statement (the filter, the order with
 * unset values last and id breaking ties, each row's uploader and icon looked up for the page's rows)
 * and COUNT(*) for the total, whichever database answers. Not the relay's statements (those are the
 * floor's, list-query.ts, which this shares the PAT check and `send` with): what the relay is held
 * to here is the raw server's answers per second, not its own work.
 */
import { createServer } from 'node:http';
import { authenticate, send, type TokenRow } from './list-query';

const STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'];
const SORTS = ['uploaded_at', 'version_name', 'status_label'];

export interface Statement {
  sql: string;
  args: (string | number)[];
}

/** What a raw baseline's database does for the list (synchronous or not). */
export interface RawListDatabase {
  token(hash: string): TokenRow | undefined | Promise<TokenRow | undefined>;
  touchToken(id: number, now: number): unknown;
  rows(statement: Statement): ListRow[] | Promise<ListRow[]>;
  total(statement: Statement): number | Promise<number>;
  placeholder(n: number): string;
}

/** GET /api/v1/builds on `port` (127.0.0.1), answered from `db`; anything else 404. */
export function serveRawList(db: RawListDatabase, port: number): void {
  createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || url.pathname !== '/api/v1/builds') return send(res, 404, { error: 'Not found' });
    (async () => {
      const auth = await authenticate(db, req.headers.authorization);
      if (auth !== 200) return send(res, auth, { error: auth === 401 ? 'Unauthorized' : 'Forbidden' });
      const statements = listStatements(url.searchParams, db.placeholder);
      if (typeof statements === 'string') return send(res, 400, { error: statements });
      const rows = await db.rows(statements.page);
      send(res, 200, { items: rows.map(listItem), total: await db.total(statements.count) });
    })().catch((err: Error) => send(res, 500, { error: err.message }));
  }).listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on ${port}\n`));
}

function integer(value: string | null, min: number): number | undefined | null {
  if (value === null) return undefined;
  return /^\d+$/.test(value) && Number(value) >= min ? Number(value) : null;
}

/**
 * The list's two statements for these parameters (`placeholder(n)` names the n-th argument, from
 * 1), or the 400 message: the page, with each row's uploader (the first status-history entry and
 * its live account) and whether it has an icon, looked up for the page's rows only however deep the
 * page; and the count of every match. Unset values sort last either way, id breaks ties; uploaded_at
 * is never unset, so its order has no NULLS clause (an index on it serves both directions).
 */
export function listStatements(search: URLSearchParams, placeholder: (n: number) => string): { page: Statement; count: Statement } | string {
  const page = integer(search.get('page'), 0);
  const limit = integer(search.get('limit'), 1);
  const appId = integer(search.get('app_id'), 1);
  const q = search.get('q')?.trim();
  const platform = search.get('platform');
  const status = search.get('status');
  const sort = search.get('sort') ?? 'uploaded_at';
  const dir = search.get('dir') ?? 'desc';
  if (page === null || limit === null || appId === null) return 'bad number';
  if ((platform && platform !== 'ios' && platform !== 'android') || (status && !STATUSES.includes(status))) return 'bad filter';
  if (!SORTS.includes(sort) || (dir !== 'asc' && dir !== 'desc')) return 'bad sort';

  const where: string[] = [];
  const args: (string | number)[] = [];
  const add = (sql: (p: string) => string, value: string | number) => (args.push(value), where.push(sql(placeholder(args.length))));
  if (q) add((p) => `LOWER(b.version_name) LIKE ${p} ESCAPE '\\'`, `%${q.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (platform) add((p) => `b.platform = ${p}`, platform);
  if (status) add((p) => `b.status_label = ${p}`, status);
  if (appId !== undefined) add((p) => `b.app_id = ${p}`, appId);
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const size = Math.min(limit ?? 20, 100);
  const d = dir.toUpperCase();
  const orderBy = (table: string) => `${table}.${sort} ${d}${sort === 'uploaded_at' ? '' : ' NULLS LAST'}, ${table}.id ${d}`;
  const n = args.length;
  return {
    page: {
      sql: `SELECT p.*, s.id AS upload_id, s.changed_by_id AS uploader_id, s.changed_by_display_name AS kept_name,
              s.changed_by_email AS kept_email, u.display_name AS user_name, u.email AS user_email,
              EXISTS (SELECT 1 FROM build_icons i WHERE i.build_id = p.id) AS has_icon,
              (SELECT g.flags FROM build_flags g WHERE g.build_id = p.id) AS flags,
              pv.build_id AS provenance_id, pv.commit_sha, pv.branch, pv.repository, pv.pull_request, pv.ci_url, pv.changelog
            FROM (SELECT b.id, b.app_id, b.name, b.version_name, b.build_number, b.version_label, b.status_label, b.platform,
                    b.bundle_id, b.uploaded_at, b.completed_at, b.delete_after
                  FROM builds b${whereSql} ORDER BY ${orderBy('b')} LIMIT ${placeholder(n + 1)} OFFSET ${placeholder(n + 2)}) p
            LEFT JOIN build_status_changes s ON s.id = (SELECT MIN(f.id) FROM build_status_changes f WHERE f.build_id = p.id)
            LEFT JOIN users u ON u.id = s.changed_by_id
            LEFT JOIN build_provenance pv ON pv.build_id = p.id
            ORDER BY ${orderBy('p')}`,
      args: [...args, size, (page ?? 0) * size],
    },
    count: { sql: `SELECT COUNT(*) AS total FROM builds b${whereSql}`, args },
  };
}

/** A page row as the driver gives it (PostgreSQL gives bigint columns as strings). */
export interface ListRow {
  id: number;
  app_id: number;
  name: string;
  version_name: string | null;
  build_number: string | null;
  version_label: string | null;
  status_label: string | null;
  platform: string;
  bundle_id: string;
  uploaded_at: number | string;
  completed_at: number | string | null;
  delete_after: number | string | null;
  upload_id: number | null;
  uploader_id: number | null;
  kept_name: string | null;
  kept_email: string | null;
  user_name: string | null;
  user_email: string | null;
  has_icon: number | boolean;
  /** JSON text of the comparison's flags stored at upload (issue 28), or null. */
  flags: string | null;
  /** The build's provenance row (issue 25), null without one. */
  provenance_id: number | null;
  commit_sha: string | null;
  branch: string | null;
  repository: string | null;
  pull_request: number | string | null;
  ci_url: string | null;
  changelog: string | null;
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The live account's name while it exists, else the one the history entry kept; display name, else the e-mail before @. */
function uploaderName(r: ListRow): string | null {
  if (r.upload_id === null) return null;
  const [name, email] = r.user_email !== null ? [r.user_name, r.user_email] : [r.kept_name, r.kept_email!];
  return name || email.split('@')[0];
}

/** One item of the list: spec §2 Build in the spec's order, then uploaded_by, uploaded_by_id, icon_url, flags, provenance. */
export function listItem(r: ListRow) {
  return {
    id: r.id,
    app_id: r.app_id,
    name: r.name,
    version_name: r.version_name,
    build_number: r.build_number,
    version_label: r.version_label,
    status_label: r.status_label,
    platform: r.platform,
    bundle_id: r.bundle_id,
    uploaded_at: iso(r.uploaded_at),
    completed_at: iso(r.completed_at),
    delete_after: iso(r.delete_after),
    uploaded_by: uploaderName(r),
    uploaded_by_id: r.uploader_id,
    icon_url: r.has_icon ? `/api/v1/builds/${r.id}/icon` : null,
    flags: r.flags ? (JSON.parse(r.flags) as unknown[]) : [],
    provenance:
      r.provenance_id === null
        ? null
        : { commit: r.commit_sha, branch: r.branch, repository: r.repository, pull_request: r.pull_request === null ? null : Number(r.pull_request), ci_url: r.ci_url, changelog: r.changelog },
  };
}
