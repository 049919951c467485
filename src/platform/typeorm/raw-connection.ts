import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/*
 * The one reader of the drivers' connection fields (the typeorm piece 'driver connections for the
 * SqlExecutor'): TypeORM keeps them public in JavaScript but undeclared in its types, so a TypeORM upgrade
 * may move them; the fences check the sources that set them.
 */

/** better-sqlite3's Database behind a SQLite data source: the one connection every statement runs on. */
export function sqliteDatabase(dataSource: DataSource): SqliteDatabase {
  return (dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
}

/** pg's Pool behind a PostgreSQL data source: statements alone, and a client per transaction. */
export function postgresPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
