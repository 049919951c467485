import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { RelayConfig } from '../../config/relay-config';
import { dataSourceOptions } from '../../database/data-source-options';
import type { Sql } from '../../database/sql';
import { SqlExecutor } from '../../database/sql-executor';
import { TransactionRunner } from '../../database/transaction-runner';
import { FileStore, STORED_FOLDERS } from '../../storage/file-store';
import { createFileStore } from '../../storage/create-file-store';
import { CliError } from '../../relay-client/client-errors';
import { booleanColumns, copyRows, sourceReport, TableReport, tablesInCopyOrder, targetReport } from './copy-rows';

export interface MigrationReport {
  tables: TableReport[];
  /** Files copied to the target store and read back with the same SHA-256; empty when files stay in the data folder. */
  files: { key: string; bytes: number; sha256: string }[];
  storage: string;
}

/**
 * `svc migrate`: copies a SQLite install (rows, and files when a target store is given) into a fresh
 * PostgreSQL database (and object storage), then verifies row counts and checksums of every table
 * and the SHA-256 of every file read back from the target. The source is only read: the SQLite file
 * is opened read-only inside one read transaction (a consistent snapshot), files are copied, never
 * moved. The rows are copied in one PostgreSQL transaction: a failure leaves the target empty.
 */
export async function migrateInstall(source: RelayConfig, target: RelayConfig): Promise<MigrationReport> {
  if (source.database.type !== 'sqlite') throw new CliError('svc migrate copies a SQLite install: this configuration already uses PostgreSQL');
  if (source.storage.type !== 'data-dir') throw new CliError('svc migrate reads files from the data folder: this configuration already uses object storage');
  if (target.database.type !== 'postgres') throw new CliError('--to must be a postgres:// URL');
  const db = openSource(source.database.path);
  const dataSource = new DataSource(dataSourceOptions(target)); // runs the migrations: the target gets the current schema
  try {
    await dataSource.initialize();
    const executor = new SqlExecutor(dataSource);
    await refuseOlderSource(db, executor);
    await refuseUsedTarget(executor);
    db.exec('BEGIN'); // one read snapshot for copying and verifying
    const tables = tablesInCopyOrder(db);
    await new TransactionRunner(executor).run((tx) => copyRows(db, tx, tables));
    const reports = await verifyTables(db, executor, tables);
    const store = target.storage.type === 's3' ? createFileStore(target) : null;
    try {
      const files = store ? await copyFiles(source.dataDir, store) : [];
      return { tables: reports, files, storage: store ? store.location : source.dataDir };
    } finally {
      store?.close();
    }
  } finally {
    db.close();
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

function openSource(path: string): Database.Database {
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new CliError(`No relay database at ${path} (${(err as Error).message}). Is --data-dir / SVC_DATA_DIR right?`);
  }
}

/** The copy needs both schemas at the same migration: a source behind the target is migrated by starting this relay on it once. */
async function refuseOlderSource(db: Database.Database, target: Sql): Promise<void> {
  const applied = new Set((db.prepare('SELECT name FROM migrations').all() as { name: string }[]).map((m) => m.name));
  const missing = (await target.query<{ name: string }>('SELECT name FROM migrations')).filter((m) => !applied.has(m.name));
  if (missing.length) {
    throw new CliError(
      `The SQLite database is ${missing.length} migration(s) behind this relay version: start this version of the relay on it once (it migrates at start-up), stop it, then migrate`,
    );
  }
}

async function refuseUsedTarget(target: Sql): Promise<void> {
  const [{ n }] = await target.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM users');
  if (n > 0) throw new CliError('The target database already holds an install (it has members): give svc migrate an empty database');
}

async function verifyTables(db: Database.Database, target: Sql, tables: string[]): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const table of tables) {
    const expected = sourceReport(db, table, await booleanColumns(target, table));
    const actual = await targetReport(target, table);
    if (expected.rows !== actual.rows) {
      throw new CliError(`Verification failed: ${table} has ${expected.rows} row(s) in SQLite but ${actual.rows} in PostgreSQL`);
    }
    if (expected.sha256 !== actual.sha256) throw new CliError(`Verification failed: the rows of ${table} differ after the copy`);
    reports.push(expected);
  }
  return reports;
}

/** Copies each stored file (a temp copy is what the store's put() moves in), then reads it back and compares hashes. */
async function copyFiles(dataDir: string, store: FileStore): Promise<MigrationReport['files']> {
  const copied: MigrationReport['files'] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'svc-migrate-'));
  try {
    for (const folder of STORED_FOLDERS) {
      const names = await readdir(join(dataDir, folder), { withFileTypes: true }).catch(() => []);
      for (const entry of names.filter((e) => e.isFile())) {
        const key = folder + entry.name;
        const original = join(dataDir, key);
        const expected = await sha256(createReadStream(original));
        const temp = join(scratch, 'file');
        await copyFile(original, temp);
        await store.put(key, temp);
        const readBack = await sha256(await store.read(key));
        if (readBack.sha256 !== expected.sha256 || readBack.bytes !== expected.bytes) {
          throw new CliError(`Verification failed: ${key} reads back differently from the target storage`);
        }
        copied.push({ key, ...expected });
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return copied;
}

async function sha256(stream: AsyncIterable<Buffer | string>): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    hash.update(data);
    bytes += data.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}
