/**
 * GET /api/v1/builds as a hand-written server reads it, whichever database answers: the query
 * parameters and their checks, the filter and the order (unset values last, id breaks ties), the
 * bearer token's hash and the items' JSON. The baselines of the list benchmarks share it.
 */
import { createHash } from 'node:crypto';
import { ServerResponse } from 'node:http';

const STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'];
const SORTS = ['uploaded_at', 'version_name', 'status_label'];

export interface ListQuery {
  offset: number;
  size: number;
  where: string[];
  args: (string | number)[];
  orderBy: string;
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** sha256 (hex) of the bearer token, or null when the header carries none. */
export function bearerHash(header: string | undefined): string | null {
  const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? createHash('sha256').update(match[1]).digest('hex') : null;
}

/** Whether a token row lets this request through (401 / 403 / 200), and whether its last use is due to be recorded. */
export function tokenVerdict(
  token: { scope: string; expires_at: number | null; last_used_at: number; created_at: number } | undefined,
  now: number,
): { status: number; touch: boolean } {
  if (!token || (token.expires_at !== null && token.expires_at <= now)) return { status: 401, touch: false };
  if (!token.scope.split(',').includes('builds:write')) return { status: 403, touch: false };
  return { status: 200, touch: token.last_used_at === token.created_at || now - token.last_used_at >= 60_000 };
}

function integer(value: string | null, min: number): number | undefined | null {
  if (value === null) return undefined;
  return /^\d+$/.test(value) && Number(value) >= min ? Number(value) : null;
}

/**
 * The list's parameters as SQL pieces (`placeholder(n)` names the n-th argument, from 1), or the 400
 * message. Descending and ascending alike put unset values last; uploaded_at is never unset, so its
 * order has no NULLS clause (an index on it serves both directions).
 */
export function parseListQuery(search: URLSearchParams, placeholder: (n: number) => string): ListQuery | string {
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
  if (q) add((p) => `LOWER(version_name) LIKE ${p} ESCAPE '\\'`, `%${q.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (platform) add((p) => `platform = ${p}`, platform);
  if (status) add((p) => `status_label = ${p}`, status);
  if (appId !== undefined) add((p) => `app_id = ${p}`, appId);
  const size = Math.min(limit ?? 20, 100);
  const d = dir.toUpperCase();
  const nulls = sort === 'uploaded_at' ? '' : ' NULLS LAST';
  return { offset: (page ?? 0) * size, size, where, args, orderBy: `${sort} ${d}${nulls}, id ${d}` };
}

export interface ListRow {
  id: number | string;
  app_id: number | string;
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
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** spec §2 Build, in the spec's order (bigint columns may arrive as strings). */
export function specItem(r: ListRow) {
  return {
    id: Number(r.id),
    app_id: Number(r.app_id),
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
  };
}
