import type { Piece } from '../piece';
import { packageFile, sha256Of } from '../packages';

type Proto = { prototype: Record<string, unknown> };
/** TypeORM's driver classes, loaded when a fingerprint is taken. */
const driver = (file: string, name: string) => (require(packageFile('typeorm', `driver/${file}.js`)) as Record<string, Proto>)[name].prototype;
const sqlite = () => driver('better-sqlite3/BetterSqlite3Driver', 'BetterSqlite3Driver');
const sqliteRunner = () => driver('better-sqlite3/BetterSqlite3QueryRunner', 'BetterSqlite3QueryRunner');
const postgres = () => driver('postgres/PostgresDriver', 'PostgresDriver');

const CHECKED = { typeorm: '0.3.31', 'better-sqlite3': '12.11.1', 'typeorm > better-sqlite3': '12.11.1' } as const;

/*
 * Not yet moved (issue 23 chunk 4a moves them here, installed in the 'data-source' phase): registered
 * so the fences cover them where they are installed today.
 */

const sqliteGate: Piece<'data-source'> = {
  name: 'typeorm SQLite connection gate',
  changes: "wraps query/startTransaction/commitTransaction/rollbackTransaction on the SQLite driver's one shared query runner (createQueryRunner('master') is a singleton), so a transaction owns the connection",
  why: 'concurrent requests no longer run statements inside each other\'s transactions on the one SQLite connection (docs/database.md)',
  checkedAgainst: CHECKED,
  phase: 'data-source',
  fingerprint: () => {
    const runner = sqliteRunner();
    return sha256Of([sqlite().createQueryRunner, runner.query, runner.startTransaction, runner.commitTransaction, runner.rollbackTransaction].map(String));
  },
  expected: ['2264f286c2b1ce1280c8bef7a62701386cd8939edd1853520577052283509064'],
  notYetMoved: { files: ['src/database/transaction-runner.ts'], installedFrom: 'TransactionRunner constructor (SqliteConnectionGate.for)' },
};

const integerParameters: Piece<'data-source'> = {
  name: 'typeorm SQLite integers bound as BigInt',
  changes: "replaces the SQLite driver instance's escapeQueryWithParameters: safe integers go in as BigInt, bound instead of written into the SQL text",
  why: '21,125 distinct statements a minute of bench:soak -> 128; RSS 380 -> 556 MB became 250 -> 308 MB (docs/decisions.md#item-50)',
  checkedAgainst: CHECKED,
  phase: 'data-source',
  fingerprint: () => sha256Of([String(sqlite().escapeQueryWithParameters)]),
  expected: ['fa0970a8ff382b160f63d4769f147703d7dc354b085cfe668318fe9613cfd274'],
  notYetMoved: { files: ['src/database/sqlite-integer-parameters.ts'], installedFrom: "the SQLite gate's constructor" },
};

const rawConnections: Piece<'data-source'> = {
  name: 'typeorm driver connections for array rows',
  changes: "TransactionRunner.selectArrays reads the drivers' `databaseConnection` (better-sqlite3, raw statements) and `master` (pg Pool, rowMode 'array')",
  why: 'a 100-build page of GET /builds on SQLite 470 -> 260 µs (rows as arrays, docs/database.md)',
  checkedAgainst: { ...CHECKED, 'typeorm > pg': '8.23.1' },
  phase: 'data-source',
  fingerprint: () => sha256Of([String(sqlite().createDatabaseConnection), String(postgres().connect)]),
  expected: ['227c151bb48bc79cbdb5f41dd34a7268187e8c54b1f72704f6b160d1b8b6463e'],
  notYetMoved: { files: ['src/database/transaction-runner.ts'], installedFrom: 'read by TransactionRunner.selectArrays, per request' },
};

export const pieces = [sqliteGate, integerParameters, rawConnections];
