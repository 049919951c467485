/**
 * The soak floor's database access (baselines/soak-server.ts): the driver, prepared or named
 * statements, transactions. Its own file so that a CPU profile of the floor tells its data layer
 * from its handlers, as bench/profile-layers.ts does for the relay.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { Pool, PoolClient } from 'pg';

/** One connection's statements; `?` placeholders, numbered for PostgreSQL (`compiled`: already in the dialect's form). */
export interface Queries {
  all<T>(sql: string, args?: unknown[], compiled?: boolean): Promise<T[]>;
}
export interface Db extends Queries {
  transaction<T>(work: (q: Queries) => Promise<T>): Promise<T>;
}

const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

function postgresDb(url: string): Db {
  // Its connections kept through the relay's turns, as the relay's pool keeps its own (`min`).
  const pool = new Pool({ connectionString: url, max: 10, min: 10 });
  // Every statement a named one, parsed once per connection, as the relay's SELECTs are (src/platform/pg/prepared-client.ts).
  const names = new Map<string, string>();
  const nameOf = (text: string) => names.get(text) ?? names.set(text, `floor_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`).get(text)!;
  const on = (c: Pool | PoolClient): Queries => ({
    all: async (sql, args = [], compiled = false) => {
      const text = compiled ? sql : numbered(sql);
      return (await c.query({ name: nameOf(text), text, values: args })).rows;
    },
  });
  return {
    ...on(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

function sqliteDb(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => statements.get(sql) ?? statements.set(sql, db.prepare(sql)).get(sql)!;
  const convert = (args: unknown[]) => args.map((a) => (typeof a === 'boolean' ? Number(a) : a));
  const queries: Queries = {
    all: async <T>(sql: string, args: unknown[] = []) => {
      const statement = prepared(sql);
      return (statement.reader ? statement.all(...convert(args)) : (statement.run(...convert(args)), [])) as T[];
    },
  };
  // One connection: another request's continuation may run between a transaction's awaits, so
  // transactions take turns (its plain reads may run inside one, which changes nothing they see).
  let turn: Promise<unknown> = Promise.resolve();
  return {
    ...queries,
    transaction(work) {
      const run = async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(queries);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      };
      const result = turn.then(run, run);
      turn = result.catch(() => undefined);
      return result;
    },
  };
}

export function openDb(target: string, postgres: boolean): Db {
  return postgres ? postgresDb(target) : sqliteDb(target);
}
