import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';

type Proto = { prototype: Record<string, unknown> };
/** A TypeORM class's prototype, loaded when a fingerprint is taken. */
const typeormClass = (file: string, name: string) => (require(packageFile('typeorm', `${file}.js`)) as Record<string, Proto>)[name].prototype;
const driver = (file: string, name: string) => typeormClass(`driver/${file}`, name);
const sqlite = () => driver('better-sqlite3/BetterSqlite3Driver', 'BetterSqlite3Driver');
const postgres = () => driver('postgres/PostgresDriver', 'PostgresDriver');

const rawConnections: Piece<'data-source'> = {
  name: 'typeorm driver connections for the SqlExecutor',
  changes: "reads the drivers' `databaseConnection` (better-sqlite3's Database) and `master` (pg's Pool); raw-connection.ts is the one reader",
  why: 'every statement runs on the driver\'s connection through src/database/sql-executor.ts, not through TypeORM\'s query runner: SQLite transactions take turns there (docs/database.md)',
  checkedAgainst: { typeorm: '0.3.31', 'better-sqlite3': '12.11.1', 'typeorm > better-sqlite3': '12.11.1', 'typeorm > pg': '8.23.1' },
  phase: 'data-source',
  // Where each field is set: the SQLite driver's connect() and createDatabaseConnection(), pg's connect().
  fingerprint: () => sha256Of([String(sqlite().connect), String(sqlite().createDatabaseConnection), String(postgres().connect)]),
  expected: ['3f78a9369a788ab92384145f2cf5e66fc01d7230b5de70c26e0f441a894608e5'],
};

export const pieces = [rawConnections];
