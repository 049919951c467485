import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { RelayConfig } from '../config/relay-config';

/** Every migration, found by file name so feature modules add theirs without touching this file. */
const MIGRATIONS = [join(__dirname, 'migrations', '*.{ts,js}')];

/**
 * SQLite (embedded default, WAL + busy timeout) or PostgreSQL. Migrations always run at start-up;
 * the schema is never synchronised from entities.
 */
export function dataSourceOptions(config: Pick<RelayConfig, 'database'>): DataSourceOptions {
  if (config.database.type === 'postgres') {
    // Loaded here so that a relay on SQLite never loads pg.
    const { PreparingClient } = require('./prepared-client') as typeof import('./prepared-client');
    return {
      type: 'postgres',
      url: config.database.url,
      migrations: MIGRATIONS,
      migrationsRun: true,
      synchronize: false,
      extra: { Client: PreparingClient },
    };
  }
  mkdirSync(dirname(config.database.path), { recursive: true });
  return {
    type: 'better-sqlite3',
    database: config.database.path,
    migrations: MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    // Prepared statements kept by SQL text (TypeORM's default keeps 100): the list's filter/sort
    // combinations alone are more, and a statement prepared again costs more than running it.
    statementCacheSize: 1000,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
    },
  };
}
