/**
 * The list's floor on SQLite (bench/million, test/bench/list-floor.e2e-spec.ts): GET /api/v1/builds answered by
 * list-query.ts (the relay's statements for every variant, the same PAT check and JSON) with plain
 * node:http and better-sqlite3 on the relay's database file or a copy of it. No indexes of its own:
 * the relay's statements are written for the relay's indexes.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/list-server.ts <sqlite file> <port>
 */
import Database from 'better-sqlite3';
import { ListDatabase, serveList, TOKEN_SQL, TokenRow } from './list-query';

/** The floor's database on a SQLite file: every statement prepared once (as the relay's driver keeps them). */
export function sqliteListDatabase(path: string): ListDatabase & { close(): void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const tokenQuery = db.prepare(TOKEN_SQL('?'));
  const touchToken = db.prepare('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?');
  const objects = new Map<string, Database.Statement>();
  const arrays = new Map<string, Database.Statement>();
  const prepared = (cache: Map<string, Database.Statement>, sql: string, raw: boolean) =>
    cache.get(sql) ?? cache.set(sql, raw ? db.prepare(sql).raw(true) : db.prepare(sql)).get(sql)!;
  return {
    dialect: 'sqlite',
    token: (hash) => tokenQuery.get(hash) as TokenRow | undefined,
    touchToken: (id, now) => touchToken.run(now, id),
    rows: <T>(sql: string, args: unknown[]) => prepared(objects, sql, false).all(...args) as T[],
    arrays: (sql, args) => prepared(arrays, sql, true).all(...args) as unknown[][],
    close: () => db.close(),
  };
}

if (require.main === module) {
  const [dbPath, portArg] = process.argv.slice(2);
  void serveList(sqliteListDatabase(dbPath), Number(portArg)).then(() => process.stdout.write(`baseline listening on ${portArg}\n`));
}
