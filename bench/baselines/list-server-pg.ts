/**
 * Baseline for bench/list-postgres: GET /api/v1/builds as a careful hand-written server would answer
 * it with plain node:http and a `pg` pool (10 connections, as the relay's) on a copy of the relay's
 * database (same rows):
 *   - the same PAT check (sha256 of the token, row + owner, expiry, scope builds:write, last use
 *     recorded at most once a minute),
 *   - the same parameters, ordering (unset values last, id breaks ties) and JSON shape, including
 *     uploaded_by / uploaded_by_id (first status-history entry, live account first) and icon_url,
 *     read with the page in one statement,
 *   - the total as COUNT(*) over the matches,
 *   - the indexes such a server would have on PostgreSQL: one per filter with the default sort, and
 *     one per sort and direction matching its ORDER BY (a backward scan of an ASC NULLS LAST index
 *     gives NULLS FIRST).
 * Usage: node -r ts-node/register/transpile-only bench/baselines/list-server-pg.ts <database url> <port>
 */
import { createServer } from 'node:http';
import { Pool } from 'pg';
import { bearerHash, ListRow, parseListQuery, send, specItem, tokenVerdict } from './list-query';

const [url, portArg] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 10 });

const INDEXES = [
  'uploaded_at, id',
  'status_label, uploaded_at, id',
  'platform, uploaded_at, id',
  'app_id, uploaded_at, id',
  'version_name ASC NULLS LAST, id ASC',
  'version_name DESC NULLS LAST, id DESC',
  'status_label ASC NULLS LAST, id ASC',
  'status_label DESC NULLS LAST, id DESC',
];

interface PageRow extends ListRow {
  changed_by_id: number | null;
  shown_name: string | null;
  shown_email: string | null;
  has_icon: boolean;
}

async function prepare(): Promise<void> {
  for (const [i, columns] of INDEXES.entries()) await pool.query(`CREATE INDEX IF NOT EXISTS bl_${i} ON builds (${columns})`);
  await pool.query('ANALYZE builds');
}

async function authenticate(header: string | undefined): Promise<number> {
  const hash = bearerHash(header);
  if (!hash) return 401;
  const { rows } = await pool.query(
    `SELECT t.id, t.scope, t.expires_at, t.last_used_at, t.created_at FROM personal_access_tokens t
     JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
    [hash],
  );
  const row = rows[0];
  const now = Date.now();
  const token = row && {
    scope: row.scope as string,
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    last_used_at: Number(row.last_used_at),
    created_at: Number(row.created_at),
  };
  const verdict = tokenVerdict(token, now);
  if (verdict.touch) await pool.query('UPDATE personal_access_tokens SET last_used_at = $1 WHERE id = $2', [now, row.id]);
  return verdict.status;
}

async function list(search: URLSearchParams) {
  const query = parseListQuery(search, (n) => `$${n}`);
  if (typeof query === 'string') return { status: 400, body: { error: query } };
  const where = query.where.length ? ` WHERE ${query.where.join(' AND ')}` : '';
  const n = query.args.length;
  const page = await pool.query<PageRow>(
    `SELECT b.*, s.changed_by_id, CASE WHEN u.id IS NULL THEN s.changed_by_display_name ELSE u.display_name END AS shown_name,
       CASE WHEN u.id IS NULL THEN s.changed_by_email ELSE u.email END AS shown_email,
       EXISTS (SELECT 1 FROM build_icons i WHERE i.build_id = b.id) AS has_icon
     FROM (SELECT id, app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id,
             uploaded_at, completed_at, delete_after
           FROM builds${where} ORDER BY ${query.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}) b
     LEFT JOIN LATERAL (SELECT changed_by_id, changed_by_display_name, changed_by_email FROM build_status_changes
                        WHERE build_id = b.id ORDER BY id LIMIT 1) s ON TRUE
     LEFT JOIN users u ON u.id = s.changed_by_id
     ORDER BY ${query.orderBy.replace(/(\w+) (ASC|DESC)/g, 'b.$1 $2')}`,
    [...query.args, query.size, query.offset],
  );
  const count = await pool.query(`SELECT COUNT(*) AS total FROM builds${where}`, query.args);
  return {
    status: 200,
    body: {
      items: page.rows.map((r) => ({
        ...specItem(r),
        // The live account while it exists, else the name kept with the entry: display name, or the e-mail before @.
        uploaded_by: r.shown_email === null ? null : r.shown_name || r.shown_email.split('@')[0],
        uploaded_by_id: r.changed_by_id,
        icon_url: r.has_icon ? `/api/v1/builds/${r.id}/icon` : null,
      })),
      total: Number(count.rows[0].total),
    },
  };
}

prepare()
  .then(() =>
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method !== 'GET' || url.pathname !== '/api/v1/builds') return send(res, 404, { error: 'Not found' });
      authenticate(req.headers.authorization)
        .then(async (auth) => {
          if (auth !== 200) return send(res, auth, { error: auth === 401 ? 'Unauthorized' : 'Forbidden' });
          const answer = await list(url.searchParams);
          send(res, answer.status, answer.body);
        })
        .catch((err: Error) => send(res, 500, { error: err.message }));
    }).listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`baseline listening on ${portArg}\n`)),
  )
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
