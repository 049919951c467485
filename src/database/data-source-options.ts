import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { PRIVATE_FOLDER_MODE } from '../storage/private-modes';
import type { RelayConfig } from '../config/relay-config';

/** Every migration, found by file name so feature modules add theirs without touching this file. */
const MIGRATIONS = [join(__dirname, 'migrations', '*.{ts,js}')];

/**
 * PostgreSQL session settings for every connection of the pool (pg's startup `options`, after any
 * the environment gives in PGOPTIONS). The relay's named statements (PreparingClient) are parsed
 * once per connection; `plan_cache_mode` is PostgreSQL's default, `auto`: a statement whose generic
 * plan costs about what its custom plans cost (a row by id, a token by hash) is planned once, the
 * others each time with their values. Forcing generic plans (until issue 42) saved 0.1–0.2 ms of
 * planning a list request at 100,000 builds, but at a million a generic plan costs a parameterised
 * LIMIT at a tenth of the rows and chose sorts: `status=untriaged` 32 answers/s against the floor's
 * 1,299, `q` 216 against 1,068 (docs/decisions.md#issue-42-plans).
 *
 * `jit = off`: with such an estimate a page that probes each build (`flagged`, `branch`) is costed
 * far above `jit_above_cost`, and PostgreSQL compiled it with inlining and optimisation on every
 * execution: 250–850 ms of JIT for 2–30 ms of execution (EXPLAIN ANALYZE, docs/decisions.md#issue-27-pages).
 * The relay's list statements read few rows; the ones that scan (`q`'s count) were not measured with it.
 */
export const POSTGRES_SESSION_OPTIONS = '-c plan_cache_mode=auto -c jit=off';

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
      // `min`: pg's pool closed a connection idle for 10 s, so after a quiet spell the relay connected
      // again and prepared every statement anew, and the next collection threw away the optimised code
      // built around the old connections (docs/decisions.md#pg-idle-connections). Connections are still
      // opened only when needed; those opened stay, up to the pool's size.
      extra: { Client: PreparingClient, options: connectionOptions(), min: config.database.poolSize },
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
