import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';
import { isSqlite, SqliteConnectionGate } from './sqlite-connection-gate';
import { bindIntegerParameters } from './sqlite-integer-parameters';

type Proto = { prototype: Record<string, unknown> };
/** A TypeORM class's prototype, loaded when a fingerprint is taken. */
const typeormClass = (file: string, name: string) => (require(packageFile('typeorm', `${file}.js`)) as Record<string, Proto>)[name].prototype;
const driver = (file: string, name: string) => typeormClass(`driver/${file}`, name);
const sqlite = () => driver('better-sqlite3/BetterSqlite3Driver', 'BetterSqlite3Driver');
const sqliteRunner = () => driver('better-sqlite3/BetterSqlite3QueryRunner', 'BetterSqlite3QueryRunner');
const postgres = () => driver('postgres/PostgresDriver', 'PostgresDriver');

const CHECKED = { typeorm: '0.3.31', 'better-sqlite3': '12.11.1', 'typeorm > better-sqlite3': '12.11.1' } as const;

/*
 * Installed on the data source by DatabaseModule's factory before initialize(), so the migrations
 * already run through them; the TransactionRunner only asks for the gate (SqliteConnectionGate.of).
 */

const sqliteGate: Piece<'data-source'> = {
  name: 'typeorm SQLite connection gate',
  changes:
    "wraps query/startTransaction/commitTransaction/rollbackTransaction on the SQLite driver's one shared query runner (createQueryRunner('master') is a singleton), so a transaction owns the connection; " +
    'EntityPersistExecutor.execute (save/remove) runs under a token of its own, so the transaction it opens is owned by it alone',

  why: 'concurrent requests no longer run statements inside each other\'s transactions on the one SQLite connection (docs/database.md)',
  checkedAgainst: CHECKED,
  phase: 'data-source',
  // The one shared runner (driver and data source hand out the same), and a transaction run on it.
  fingerprint: () => {
    const runner = sqliteRunner();
    const shared = [sqlite().createQueryRunner, typeormClass('data-source/DataSource', 'DataSource').createQueryRunner];
    const transaction = typeormClass('entity-manager/EntityManager', 'EntityManager').transaction;
    const persist = typeormClass('persistence/EntityPersistExecutor', 'EntityPersistExecutor').execute;
    return sha256Of([...shared, transaction, persist, runner.query, runner.startTransaction, runner.commitTransaction, runner.rollbackTransaction].map(String));
  },
  expected: ['31bb63ddd2c91d6f72c389991651b3f3866e2bbcf34e2f3df066a1ef762be3aa'],
  install: (dataSource) => SqliteConnectionGate.install(dataSource),
};

const integerParameters: Piece<'data-source'> = {
  name: 'typeorm SQLite integers bound as BigInt',
  changes: "replaces the SQLite driver instance's escapeQueryWithParameters: safe integers go in as BigInt, bound instead of written into the SQL text",
  why: '21,125 distinct statements a minute of bench:soak -> 128; RSS 380 -> 556 MB became 250 -> 308 MB (docs/decisions.md#item-50)',
  checkedAgainst: CHECKED,
  phase: 'data-source',
  fingerprint: () => sha256Of([String(sqlite().escapeQueryWithParameters)]),
  expected: ['fa0970a8ff382b160f63d4769f147703d7dc354b085cfe668318fe9613cfd274'],
  install: (dataSource) => {
    if (isSqlite(dataSource)) bindIntegerParameters(dataSource);
  },
};

const rawConnections: Piece<'data-source'> = {
  name: 'typeorm driver connections for array rows',
  changes: "reads the drivers' `databaseConnection` (better-sqlite3, raw statements) and `master` (pg Pool, rowMode 'array') for TransactionRunner.selectArrays; raw-connection.ts is the one reader",
  why: 'a 100-build page of GET /builds on SQLite 470 -> 260 µs (rows as arrays, docs/database.md)',
  checkedAgainst: { ...CHECKED, 'typeorm > pg': '8.23.1' },
  phase: 'data-source',
  // Where each field is set: the SQLite driver's connect() and createDatabaseConnection(), pg's connect().
  fingerprint: () => sha256Of([String(sqlite().connect), String(sqlite().createDatabaseConnection), String(postgres().connect)]),
  expected: ['3f78a9369a788ab92384145f2cf5e66fc01d7230b5de70c26e0f441a894608e5'],
};

export const pieces = [sqliteGate, integerParameters, rawConnections];
