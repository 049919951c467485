/**
 * The list's floor on PostgreSQL (bench/million, test/bench/list-floor.e2e-spec.ts): GET /api/v1/builds answered by
 * list-query.ts (the relay's statements for every variant, the same PAT check and JSON) with plain
 * node:http and a `pg` pool of 10 connections (as the relay's) on the relay's database or a copy.
 * Every statement is a named one, parsed once per connection, as the relay's SELECTs are
 * (src/platform/pg/prepared-client.ts); no indexes of its own.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/list-server-pg.ts <database url> <port>
 */
import { createHash } from 'node:crypto';
import { Pool } from 'pg';
import { ListDatabase, serveList, TOKEN_SQL, TokenRow } from './list-query';

export function postgresListDatabase(url: string): ListDatabase & { close(): Promise<void> } {
  const pool = new Pool({ connectionString: url, max: 10 });
  const names = new Map<string, string>();
  const nameOf = (text: string) => names.get(text) ?? names.set(text, `floor_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`).get(text)!;
  const tokenSql = TOKEN_SQL('$1');
  return {
    dialect: 'postgres',
    token: async (hash) => (await pool.query<TokenRow>({ name: nameOf(tokenSql), text: tokenSql, values: [hash] })).rows[0],
    touchToken: (id, now) => pool.query('UPDATE personal_access_tokens SET last_used_at = $1 WHERE id = $2', [now, id]),
    rows: async <T>(sql: string, args: unknown[]) => (await pool.query({ name: nameOf(sql), text: sql, values: args })).rows as T[],
    arrays: async (sql, args) => (await pool.query({ name: nameOf(sql), text: sql, values: args, rowMode: 'array' })).rows as unknown[][],
    close: () => pool.end(),
  };
}

if (require.main === module) {
  const [url, portArg] = process.argv.slice(2);
  void serveList(postgresListDatabase(url), Number(portArg)).then(() => process.stdout.write(`baseline listening on ${portArg}\n`));
}
