import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/*
 * The one reader of the drivers' connection fields (the typeorm piece 'driver connections for array
 * rows'): TypeORM keeps them public in JavaScript but undeclared in its types, so a TypeORM upgrade
 * may move them; the fences check the sources that set them.
 */

/** better-sqlite3's Database behind a SQLite data source: statements prepared in raw (array) mode. */
export function sqliteDatabase(dataSource: DataSource): SqliteDatabase {
  return (dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
}

/** pg's Pool behind a PostgreSQL data source: queries with rowMode 'array'. */
export function postgresPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
