/**
 * Baseline for bench/list: GET /api/v1/builds as a careful hand-written server would answer it,
 * with plain node:http and better-sqlite3 on a copy of the relay's database (same rows):
 *   - the same PAT check (sha256 of the token, row + owner, expiry, scope builds:write, last use
 *     recorded at most once a minute),
 *   - the same parameters, validation, ordering (unset values last, id breaks ties) and JSON shape,
 *     the uploader (first status-history entry, live account) and icon joined for the page's rows,
 *   - the indexes such a server would have: one per filter with the default sort, one per sort.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/list-server.ts <sqlite file> <port>
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createServer, ServerResponse } from 'node:http';

const [dbPath, portArg] = process.argv.slice(2);
const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
for (const [name, columns] of [
  ['bl_uploaded', 'uploaded_at'],
  ['bl_status_uploaded', 'status_label, uploaded_at'],
  ['bl_platform_uploaded', 'platform, uploaded_at'],
  ['bl_app_uploaded', 'app_id, uploaded_at'],
  ['bl_version', 'version_name'],
  ['bl_status', 'status_label'],
]) {
  db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON builds (${columns})`);
}

const tokenQuery = db.prepare(
  `SELECT t.id, t.scope, t.expires_at, t.last_used_at, t.created_at FROM personal_access_tokens t
   JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`,
);
const touchToken = db.prepare('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?');
const statements = new Map<string, Database.Statement>();
const prepared = (sql: string) => statements.get(sql) ?? statements.set(sql, db.prepare(sql)).get(sql)!;

const STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected'];
const SORTS: Record<string, string> = { uploaded_at: 'uploaded_at', version_name: 'version_name', status_label: 'status_label' };

interface Row {
  id: number;
  app_id: number;
  name: string;
  version_name: string | null;
  build_number: string | null;
  version_label: string | null;
  status_label: string | null;
  platform: string;
  bundle_id: string;
  uploaded_at: number;
  completed_at: number | null;
  delete_after: number | null;
  upload_id: number | null;
  uploader_id: number | null;
  kept_name: string | null;
  kept_email: string | null;
  user_name: string | null;
  user_email: string | null;
  has_icon: number;
}

/** The live account's name while it exists, else the one the history entry kept; display name, else the e-mail before @. */
function uploaderName(r: Row): string | null {
  if (r.upload_id === null) return null;
  const [name, email] = r.user_email !== null ? [r.user_name, r.user_email] : [r.kept_name, r.kept_email!];
  return name || email.split('@')[0];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function authenticate(header: string | undefined): number {
  const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return 401;
  const token = tokenQuery.get(createHash('sha256').update(match[1]).digest('hex')) as
    | { id: number; scope: string; expires_at: number | null; last_used_at: number; created_at: number }
    | undefined;
  const now = Date.now();
  if (!token || (token.expires_at !== null && token.expires_at <= now)) return 401;
  if (!token.scope.split(',').includes('builds:write')) return 403;
  if (token.last_used_at === token.created_at || now - token.last_used_at >= 60_000) touchToken.run(now, token.id);
  return 200;
}

function integer(value: string | null, min: number): number | undefined | null {
  if (value === null) return undefined;
  return /^\d+$/.test(value) && Number(value) >= min ? Number(value) : null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method !== 'GET' || url.pathname !== '/api/v1/builds') return send(res, 404, { error: 'Not found' });
  const auth = authenticate(req.headers.authorization);
  if (auth !== 200) return send(res, auth, { error: auth === 401 ? 'Unauthorized' : 'Forbidden' });
  const p = url.searchParams;
  const page = integer(p.get('page'), 0);
  const limit = integer(p.get('limit'), 1);
  const appId = integer(p.get('app_id'), 1);
  const q = p.get('q')?.trim();
  const platform = p.get('platform');
  const status = p.get('status');
  const sort = p.get('sort') ?? 'uploaded_at';
  const dir = p.get('dir') ?? 'desc';
  if (page === null || limit === null || appId === null) return send(res, 400, { error: 'bad number' });
  if ((platform && platform !== 'ios' && platform !== 'android') || (status && !STATUSES.includes(status))) {
    return send(res, 400, { error: 'bad filter' });
  }
  if (!SORTS[sort] || (dir !== 'asc' && dir !== 'desc')) return send(res, 400, { error: 'bad sort' });

  const where: string[] = [];
  const args: (string | number)[] = [];
  if (q) {
    where.push("LOWER(b.version_name) LIKE ? ESCAPE '\\'");
    args.push(`%${q.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (platform) where.push('b.platform = ?'), args.push(platform);
  if (status) where.push('b.status_label = ?'), args.push(status);
  if (appId !== undefined) where.push('b.app_id = ?'), args.push(appId);
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const size = Math.min(limit ?? 20, 100);
  const d = dir.toUpperCase();
  // The page first, then its rows' uploader (the first history entry and its live account) and
  // icon, so those lookups run for the page's rows only, however deep the page.
  const orderBy = (table: string) => `${table}.${SORTS[sort]} ${d} NULLS LAST, ${table}.id ${d}`;
  const rows = prepared(
    `SELECT p.*, s.id AS upload_id, s.changed_by_id AS uploader_id, s.changed_by_display_name AS kept_name,
       s.changed_by_email AS kept_email, u.display_name AS user_name, u.email AS user_email,
       EXISTS (SELECT 1 FROM build_icons i WHERE i.build_id = p.id) AS has_icon
     FROM (SELECT b.id, b.app_id, b.name, b.version_name, b.build_number, b.version_label, b.status_label, b.platform,
             b.bundle_id, b.uploaded_at, b.completed_at, b.delete_after
           FROM builds b${whereSql} ORDER BY ${orderBy('b')} LIMIT ? OFFSET ?) p
     LEFT JOIN build_status_changes s ON s.id = (SELECT MIN(f.id) FROM build_status_changes f WHERE f.build_id = p.id)
     LEFT JOIN users u ON u.id = s.changed_by_id
     ORDER BY ${orderBy('p')}`,
  ).all(...args, size, (page ?? 0) * size) as Row[];
  const { total } = prepared(`SELECT COUNT(*) AS total FROM builds b${whereSql}`).get(...args) as { total: number };
  send(res, 200, {
    items: rows.map((r) => ({
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
    })),
    total,
  });
}).listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`baseline listening on ${portArg}\n`));
