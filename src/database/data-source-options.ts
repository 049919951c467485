import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { PRIVATE_FOLDER_MODE } from '../storage/private-modes';
import type { RelayConfig } from '../config/relay-config';

/** Every migration, found by file name so feature modules add theirs without touching this file. */
const MIGRATIONS = [join(__dirname, 'migrations', '*.{ts,js}')];

/**
 * PostgreSQL session settings for every connection of the pool (pg's startup `options`, after any
 * the environment gives in PGOPTIONS). `plan_cache_mode = force_generic_plan`: the relay's named
 * statements (PreparingClient) are planned once per connection instead of on every execution.
 * PostgreSQL kept choosing custom plans for the list's page-ids statement (its parameterised
 * OFFSET makes the generic plan's estimate look worse), so each GET /builds paid 0.1–0.2 ms of
 * planning for 0.06–0.3 ms of execution; the generic plans of every list variant are the custom
 * ones' shapes at 100,000 builds (docs/decisions.md#p7), and test/builds/list-plans explains the
 * generic plan of each statement the list sends.
 *
 * `jit = off`: a generic plan estimates a parameterised LIMIT as a tenth of the rows, so at a
 * million builds a page that probes each build (`flagged`, `branch`) is costed far above
 * `jit_above_cost`, and PostgreSQL compiled it with inlining and optimisation on every execution:
 * 250–850 ms of JIT for 2–30 ms of execution (EXPLAIN ANALYZE, docs/decisions.md#issue-27-pages).
 * The relay's list statements read few rows; the ones that scan (`q`'s count) were not measured with it.
 */
export const POSTGRES_SESSION_OPTIONS = '-c plan_cache_mode=force_generic_plan -c jit=off';

function connectionOptions(): string {
  return [process.env.PGOPTIONS, POSTGRES_SESSION_OPTIONS].filter(Boolean).join(' ');
}

/**
 * SQLite (embedded default, WAL + busy timeout) or PostgreSQL. Migrations always run at start-up;
 * the schema is never synchronised from entities.
 */
export function dataSourceOptions(config: Pick<RelayConfig, 'database'>): DataSourceOptions {
  if (config.database.type === 'postgres') {
    // Loaded here so that a relay on SQLite never loads pg.
    const { PreparingClient } = require('../platform/pg/prepared-client') as typeof import('../platform/pg/prepared-client');
    return {
      type: 'postgres',
      url: config.database.url,
      poolSize: config.database.poolSize,
      migrations: MIGRATIONS,
      migrationsRun: true,
      synchronize: false,
      extra: { Client: PreparingClient, options: connectionOptions() },
    };
  }
  mkdirSync(dirname(config.database.path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  return {
    type: 'better-sqlite3',
    database: config.database.path,
    migrations: MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    // TypeORM's own statement cache, which after the SqlExecutor serves only the migrations (the
    // executor keeps its own, src/database/executor/sqlite-connection.ts).
    statementCacheSize: 1000,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
    },
  };
}
