import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../../storage/private-modes';
import type { RelayConfig } from '../../config/relay-config';
import { createFileStore } from '../../storage/create-file-store';
import { FileStore, STORED_FOLDERS } from '../../storage/file-store';
import { CliError } from '../../relay-client/client-errors';
import {
  AUDIT_KEY_ENTRY,
  BACKUP_FORMAT,
  BackupManifest,
  DATABASE_ENTRY,
  FILES_PREFIX,
  HashingStream,
  MANIFEST_ENTRY,
  safeRelativePath,
} from './backup-manifest';

/** Data-dir folders replaced as a whole by `restore --force` (the stored files' folders are the store's). */
const LOCAL_DIRS = ['builds', 'uploads', 'recordings', 'tmp'];

/**
 * Restores a backup archive into the configured data dir and store. Everything is first extracted
 * into a staging folder inside the data dir and checked against the manifest (sizes, SHA-256) and by
 * SQLite's integrity check; only then are the stored files put into the configured store (the data
 * folder or S3, whichever the backup came from) and the database moved into place. Refuses a data
 * dir that already holds a database unless `force` (the relay must be stopped for that).
 */
export async function restoreBackup(config: RelayConfig, archive: string, force: boolean): Promise<BackupManifest> {
  if (config.database.type !== 'sqlite') throw new CliError('svc restore restores into SQLite; the configured database is PostgreSQL');
  if (!existsSync(archive)) throw new CliError(`${archive}: no such file`);
  const dbPath = config.database.path;
  if (existsSync(dbPath) && !force) {
    throw new CliError(
      `${config.dataDir} already holds a relay database. Stop the relay and pass --force to replace it, or restore into another --data-dir.`,
    );
  }
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const staging = join(config.dataDir, `.restore-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { mode: PRIVATE_FOLDER_MODE });
  let store: FileStore | null = null;
  try {
    const { manifest, sums } = await extract(archive, staging);
    verify(manifest, sums, staging);
    // Only now: the data-folder store creates its folders, which a refused archive must not leave.
    store = createFileStore(config);
    if (force) await clearStoredFiles(config, dbPath, store);
    for (const file of manifest.files) {
      const staged = join(staging, 'files', file.path);
      if (STORED_FOLDERS.some((folder) => file.path.startsWith(folder))) {
        await store.put(file.path, staged);
        continue;
      }
      // Older archives copied any file under the data dir; those go back where they were.
      const dest = join(config.dataDir, file.path);
      mkdirSync(dirname(dest), { recursive: true });
      renameSync(staged, dest);
    }
    mkdirSync(dirname(dbPath), { recursive: true });
    renameSync(join(staging, DATABASE_ENTRY), dbPath);
    // The key that signed this database's audit head replaces any key file here (it signs nothing else now).
    if (manifest.auditHeadKey) renameSync(join(staging, AUDIT_KEY_ENTRY), join(config.dataDir, AUDIT_KEY_ENTRY));
    return manifest;
  } finally {
    store?.close();
    rmSync(staging, { recursive: true, force: true });
  }
}

interface Sum {
  bytes: number;
  sha256: string;
}

/**
 * Unpacks the archive into `staging`, hashing every entry. Any failure is a CliError naming the
 * archive: a truncated, corrupt or foreign file is refused with its reason, never a stack trace.
 */
async function extract(archive: string, staging: string): Promise<{ manifest: BackupManifest; sums: Map<string, Sum> }> {
  const extractor = tar.extract();
  let feeding: Promise<void> | null = null;
  try {
    feeding = pipeline(await maybeGunzip(archive), extractor);
    const { manifest, sums } = await unpackEntries(extractor, staging);
    await feeding;
    if (!manifest) throw new CliError(`${archive} has no ${MANIFEST_ENTRY}: not an svc backup, or cut short`);
    return { manifest, sums };
  } catch (err) {
    // Both the feed and the entry loop fail on one bad archive (and a refused entry makes the feed
    // fail too); one refusal is reported, the other rejection must not go unhandled.
    feeding?.catch(() => undefined);
    if (err instanceof CliError) throw err;
    throw new CliError(`${archive} is not a readable svc backup (${(err as Error).message})`);
  }
}

async function unpackEntries(extractor: tar.Extract, staging: string): Promise<{ manifest: BackupManifest | null; sums: Map<string, Sum> }> {
  const sums = new Map<string, Sum>();
  let manifest: BackupManifest | null = null;
  for await (const entry of extractor) {
    const name = entry.header.name;
    if (entry.header.type !== 'file') {
      entry.resume();
      continue;
    }
    if (name === MANIFEST_ENTRY) {
      manifest = parseManifest(await readAll(entry as unknown as Readable));
      continue;
    }
    const topLevel = name === DATABASE_ENTRY || name === AUDIT_KEY_ENTRY;
    const relativePath = topLevel ? name : name.startsWith(FILES_PREFIX) ? safeRelativePath(name.slice(FILES_PREFIX.length)) : null;
    if (!relativePath) throw new CliError(`Unexpected entry in backup: ${name}`);
    const dest = topLevel ? join(staging, name) : join(staging, 'files', relativePath);
    mkdirSync(dirname(dest), { recursive: true });
    const hashing = new HashingStream();
    await pipeline(entry, hashing, createWriteStream(dest, { mode: PRIVATE_FILE_MODE }));
    sums.set(name, { bytes: hashing.bytes, sha256: hashing.digest() });
  }
  return { manifest, sums };
}

function verify(manifest: BackupManifest, sums: Map<string, Sum>, staging: string): void {
  const expected: Array<[string, Sum]> = [
    [DATABASE_ENTRY, manifest.database],
    ...(manifest.auditHeadKey ? [[AUDIT_KEY_ENTRY, manifest.auditHeadKey] as [string, Sum]] : []),
    ...manifest.files.map((f): [string, Sum] => [FILES_PREFIX + f.path, f]),
  ];
  for (const [name, want] of expected) {
    const got = sums.get(name);
    if (!got) throw new CliError(`Backup is incomplete: ${name} is listed in the manifest but missing`);
    if (got.bytes !== want.bytes || got.sha256 !== want.sha256) throw new CliError(`Backup is damaged: ${name} does not match its checksum`);
  }
  checkDatabase(join(staging, DATABASE_ENTRY));
}

/** SQLite's own check of the staged copy; a file that is no database at all is refused the same way. */
function checkDatabase(path: string): void {
  let result: unknown;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      result = db.pragma('integrity_check', { simple: true });
    } finally {
      db.close();
    }
  } catch (err) {
    throw new CliError(`The database in the backup is not a readable SQLite database (${(err as Error).message})`);
  }
  if (result !== 'ok') throw new CliError(`The database in the backup fails SQLite's integrity check: ${result}`);
}

function parseManifest(text: string): BackupManifest {
  try {
    const manifest = JSON.parse(text) as BackupManifest;
    if (manifest.format === BACKUP_FORMAT && Array.isArray(manifest.files) && manifest.database) {
      for (const file of manifest.files) {
        if (!safeRelativePath(file.path)) throw new Error(`bad path ${file.path}`);
      }
      return manifest;
    }
  } catch {
    // reported below
  }
  throw new CliError(`${MANIFEST_ENTRY} is not an svc backup manifest`);
}

/** Replaces the relay's current data (restore --force): database files, stored files (in whichever store), local folders. */
async function clearStoredFiles(config: RelayConfig, dbPath: string, store: FileStore): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(dbPath + suffix, { force: true });
  for (const folder of STORED_FOLDERS) {
    const keys: string[] = [];
    for await (const key of store.list(folder)) keys.push(key);
    await store.remove(keys);
  }
  for (const name of readdirSync(config.dataDir)) {
    if (LOCAL_DIRS.includes(name)) rmSync(join(config.dataDir, name), { recursive: true, force: true });
  }
}

/** Archives may have been gzipped by hand (`gzip svc-backup.tar`); both forms restore. */
async function maybeGunzip(archive: string): Promise<Readable> {
  const head = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    createReadStream(archive, { start: 0, end: 1 })
      .on('data', (c) => chunks.push(c as Buffer))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
  const file = createReadStream(archive);
  if (head[0] === 0x1f && head[1] === 0x8b) return file.pipe(createGunzip());
  return file.pipe(new PassThrough());
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
