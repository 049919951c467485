import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { RELAY_VERSION } from '../../relay/relay-version';
import { PRIVATE_FILE_MODE } from '../../storage/private-modes';
import type { RelayConfig } from '../../config/relay-config';
import { FileStore, STORED_FOLDERS } from '../../storage/file-store';
import { createFileStore } from '../../storage/create-file-store';
import { CliError } from '../../relay-client/client-errors';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  AUDIT_KEY_ENTRY,
  BackupManifest,
  DATABASE_ENTRY,
  FILES_PREFIX,
  HashingStream,
  MANIFEST_ENTRY,
  ManifestFile,
} from './backup-manifest';

/**
 * Writes a backup archive of a relay's database and stored files to `output`, safe while the relay
 * runs: the database is copied with `VACUUM INTO`, one read transaction, so the copy is a consistent
 * snapshot even while uploads commit (SQLite WAL lets writers continue meanwhile). Stored files are
 * then streamed into the archive from the configured store (the data folder or S3); files enter the
 * store only when complete, so none is caught half-written. The archive is written to
 * `<output>.partial` and renamed. The archive and the snapshot hold every hash and webhook secret:
 * both are created 0600 whatever the umask.
 */
export async function createBackup(config: RelayConfig, output: string): Promise<BackupManifest> {
  if (config.database.type !== 'sqlite') {
    throw new CliError('svc backup copies the SQLite database; for PostgreSQL back up with pg_dump and copy the data dir');
  }
  const target = resolve(output);
  const partial = `${target}.partial`;
  const snapshot = `${target}.sqlite-snapshot`;
  rmSync(snapshot, { force: true });
  // A .partial left by a killed run keeps its old mode when reopened: start from a new file.
  rmSync(partial, { force: true });
  const store = createFileStore(config);
  try {
    snapshotDatabase(config.database.path, snapshot);
    const manifest = await writeArchive(partial, snapshot, store, join(config.dataDir, AUDIT_KEY_ENTRY));
    renameSync(partial, target);
    return manifest;
  } finally {
    store.close();
    rmSync(snapshot, { force: true });
    rmSync(partial, { force: true });
  }
}

function snapshotDatabase(databasePath: string, snapshot: string): void {
  let db: Database.Database;
  try {
    db = new Database(databasePath, { fileMustExist: true });
  } catch (err) {
    throw new CliError(`No relay database at ${databasePath} (${err.message}). Is --data-dir / SVC_DATA_DIR right?`);
  }
  try {
    db.pragma('busy_timeout = 10000');
    // VACUUM INTO fills an empty file as it is, so the copy is never readable by others.
    writeFileSync(snapshot, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    db.prepare('VACUUM INTO ?').run(snapshot);
  } finally {
    db.close();
  }
}

/** Every stored file's key (builds, images, recordings), listed before any is copied, sorted. */
async function storedKeys(store: FileStore): Promise<string[]> {
  const keys: string[] = [];
  for (const folder of STORED_FOLDERS) for await (const key of store.list(folder)) keys.push(key);
  return keys.sort();
}

async function writeArchive(archivePath: string, snapshot: string, store: FileStore, auditKeyPath: string): Promise<BackupManifest> {
  const keys = await storedKeys(store);
  const pack = tar.pack();
  const written = pipeline(pack, createWriteStream(archivePath, { mode: PRIVATE_FILE_MODE, flags: 'wx' }));
  const database = await addEntry(pack, DATABASE_ENTRY, statSync(snapshot).size, createReadStream(snapshot));
  // The audit head's key travels with the database it signs (the archive is 0600 like the data folder).
  const auditHeadKey = existsSync(auditKeyPath)
    ? await addEntry(pack, AUDIT_KEY_ENTRY, statSync(auditKeyPath).size, createReadStream(auditKeyPath))
    : undefined;
  const entries: ManifestFile[] = [];
  const skipped: string[] = [];
  for (const key of keys) {
    // A file purged since it was listed is skipped, not an error.
    const info = await store.stat(key);
    const source = info ? await store.read(key).catch(() => null) : null;
    if (!info || !source) {
      skipped.push(key);
      continue;
    }
    entries.push({ path: key, ...(await addEntry(pack, FILES_PREFIX + key, info.size, source)) });
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    formatVersion: BACKUP_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    relayVersion: RELAY_VERSION,
    database,
    ...(auditHeadKey ? { auditHeadKey } : {}),
    files: entries,
    skipped,
  };
  pack.entry({ name: MANIFEST_ENTRY }, JSON.stringify(manifest, null, 2));
  pack.finalize();
  await written;
  return manifest;
}

/** Streams one file into the archive (never whole in memory), hashing it on the way. */
async function addEntry(pack: tar.Pack, name: string, size: number, source: Readable): Promise<{ bytes: number; sha256: string }> {
  const hashing = new HashingStream();
  const entry = pack.entry({ name, size, mode: 0o600 });
  await pipeline(source, hashing, entry);
  return { bytes: hashing.bytes, sha256: hashing.digest() };
}
