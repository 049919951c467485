/**
 * The raw baseline of bench/list-postgres (not the floor: list-server-pg.ts runs the relay's own
 * statements): GET /api/v1/builds as a careful hand-written server would answer it with plain
 * node:http and a `pg` pool (10 connections, as the relay's) on a copy of the relay's database
 * (same rows), through the same statements as bench/list's raw baseline (raw-list-query.ts: the
 * PAT check, the page with each row's uploader and icon, COUNT(*) for the total), sent unnamed as
 * `pool.query` does, and with the indexes such a server would have on PostgreSQL: one per filter
 * with the default sort, and one per sort and direction in its ORDER BY's exact order (a backward
 * scan of an ASC NULLS LAST index gives NULLS FIRST).
 * Usage: node -r ts-node/register/transpile-only bench/baselines/raw-list-server-pg.ts <database url> <port>
 */
import { Pool } from 'pg';
import { TOKEN_SQL, type TokenRow } from './list-query';
import { type ListRow, serveRawList } from './raw-list-query';

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

async function main(): Promise<void> {
  for (const [i, columns] of INDEXES.entries()) await pool.query(`CREATE INDEX IF NOT EXISTS bl_${i} ON builds (${columns})`);
  await pool.query('ANALYZE builds');
  serveRawList(
    {
      placeholder: (n) => `$${n}`,
      token: async (hash) => (await pool.query<TokenRow>(TOKEN_SQL('$1'), [hash])).rows[0],
      touchToken: (id, now) => pool.query('UPDATE personal_access_tokens SET last_used_at = $1 WHERE id = $2', [now, id]),
      rows: async ({ sql, args }) => (await pool.query<ListRow>(sql, args)).rows,
      total: async ({ sql, args }) => Number((await pool.query(sql, args)).rows[0].total),
    },
    Number(portArg),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
