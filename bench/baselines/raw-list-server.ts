/**
 * The raw baseline of bench/list (not the floor: list-server.ts runs the relay's own statements):
 * GET /api/v1/builds as a careful hand-written server would answer it, with plain node:http and
 * better-sqlite3 on a copy of the relay's database (same rows):
 *   - the same PAT check (sha256 of the token, row + owner, expiry, scope builds:write, last use
 *     recorded at most once a minute),
 *   - the same parameters, validation, ordering (unset values last, id breaks ties) and JSON shape,
 *     the uploader (first status-history entry, live account) and icon joined for the page's rows
 *     (the statements are raw-list-query.ts's, shared with the PostgreSQL raw baseline),
 *   - the indexes such a server would have: one per filter with the default sort, one per sort.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/raw-list-server.ts <sqlite file> <port>
 */
import Database from 'better-sqlite3';
import { TOKEN_SQL, type TokenRow } from './list-query';
import { type ListRow, serveRawList } from './raw-list-query';

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

const tokenQuery = db.prepare(TOKEN_SQL('?'));
const touchToken = db.prepare('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?');
const statements = new Map<string, Database.Statement>();
const prepared = (sql: string) => statements.get(sql) ?? statements.set(sql, db.prepare(sql)).get(sql)!;

serveRawList(
  {
    placeholder: () => '?',
    token: (hash) => tokenQuery.get(hash) as TokenRow | undefined,
    touchToken: (id, now) => touchToken.run(now, id),
    rows: ({ sql, args }) => prepared(sql).all(...args) as ListRow[],
    total: ({ sql, args }) => (prepared(sql).get(...args) as { total: number }).total,
  },
  Number(portArg),
);
