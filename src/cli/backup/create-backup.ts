import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { RELAY_VERSION } from '../../bootstrap/version';
import type { RelayConfig } from '../../config/relay-config';
import { CliError } from '../cli-error';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupManifest,
  DATABASE_ENTRY,
  FILES_PREFIX,
  HashingStream,
  MANIFEST_ENTRY,
  ManifestFile,
} from './backup-manifest';

/** Folders under the data dir that never go into a backup: uploads still being received. */
const TRANSIENT_DIRS = ['tmp'];

/**
 * Writes a backup archive of a relay's data dir to `output`, safe while the relay runs:
 * the database is copied with `VACUUM INTO`, one read transaction, so the copy is a consistent
 * snapshot even while uploads commit (SQLite WAL lets writers continue meanwhile). Stored files
 * are then streamed into the archive; build files are written once and renamed into place, so a
 * file is never caught half-written. The archive is written to `<output>.partial` and renamed.
 */
export async function createBackup(config: RelayConfig, output: string): Promise<BackupManifest> {
  if (config.database.type !== 'sqlite') {
    throw new CliError('svc backup copies the SQLite database; for PostgreSQL back up with pg_dump and copy the data dir');
  }
  const target = resolve(output);
  const partial = `${target}.partial`;
  const snapshot = `${target}.sqlite-snapshot`;
  rmSync(snapshot, { force: true });
  try {
    snapshotDatabase(config.database.path, snapshot);
    const files = storedFiles(config, [target, partial, snapshot]);
    const manifest = await writeArchive(partial, snapshot, config.dataDir, files);
    renameSync(partial, target);
    return manifest;
  } finally {
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
    db.prepare('VACUUM INTO ?').run(snapshot);
  } finally {
    db.close();
  }
}

/** Every regular file under the data dir except the database itself, transient folders and our own output. */
function storedFiles(config: RelayConfig, exclude: string[]): string[] {
  const dbPath = config.database.type === 'sqlite' ? config.database.path : '';
  const skip = new Set([...exclude, dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`].map((p) => resolve(p)));
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (dir === config.dataDir && TRANSIENT_DIRS.includes(entry.name)) continue;
        walk(full);
      } else if (entry.isFile() && !skip.has(full) && !entry.name.endsWith('.partial')) {
        found.push(full);
      }
    }
  };
  walk(config.dataDir);
  return found.sort();
}

async function writeArchive(archivePath: string, snapshot: string, dataDir: string, files: string[]): Promise<BackupManifest> {
  const pack = tar.pack();
  const written = pipeline(pack, createWriteStream(archivePath));
  const database = await addFile(pack, DATABASE_ENTRY, snapshot);
  const entries: ManifestFile[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const path = relative(dataDir, file).split(sep).join('/');
    const added = await addFile(pack, FILES_PREFIX + path, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null; // purged since it was listed
      throw err;
    });
    if (added) entries.push({ path, ...added });
    else skipped.push(path);
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    formatVersion: BACKUP_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    relayVersion: RELAY_VERSION,
    database,
    files: entries,
    skipped,
  };
  pack.entry({ name: MANIFEST_ENTRY }, JSON.stringify(manifest, null, 2));
  pack.finalize();
  await written;
  return manifest;
}

/** Streams one file into the archive (never whole in memory), hashing it on the way. */
async function addFile(pack: tar.Pack, name: string, file: string): Promise<{ bytes: number; sha256: string }> {
  const size = statSync(file).size;
  const source = createReadStream(file);
  await new Promise<void>((resolveOpen, rejectOpen) => source.once('open', () => resolveOpen()).once('error', rejectOpen));
  const hashing = new HashingStream();
  const entry = pack.entry({ name, size, mode: 0o600 });
  await pipeline(source, hashing, entry);
  return { bytes: hashing.bytes, sha256: hashing.digest() };
}
