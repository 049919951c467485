import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RelayConfig } from '../config/relay-config';

/**
 * The data folder holds every password and token hash, webhook secrets and every build: nothing in
 * it is for other local users (docs/robustness.md "File modes"). Folders are 0700, files 0600.
 */
export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
const GROUP_AND_OTHERS = 0o077;

/** The database and the files SQLite keeps beside it. */
const SQLITE_FILES = ['', '-wal', '-shm', '-journal'];

/**
 * umask 077 for this process (the relay, `svc backup`, `svc restore`, `svc admin`). One process-wide
 * rule rather than a mode at each call: files are also created by code we don't own (SQLite's
 * database, @tus/file-store's uploads, busboy spools through streams), and a new call site can't
 * forget it. The umask an init system or shell leaves (often 022) would make them world-readable.
 */
export function keepNewFilesPrivate(): void {
  process.umask(GROUP_AND_OTHERS);
}

export interface TightenedModes {
  folders: number;
  files: number;
  /** Entries whose mode could not be changed (another owner), with the first error. */
  failed: number;
  firstFailure?: string;
}

/**
 * Start-up: creates the data folder 0700, or tightens one that an older version or a looser umask
 * left open to group or others. The walk below it runs only when the folder itself is open: a 0700
 * folder already keeps everyone else out of everything in it, so a relay with 100,000 builds pays
 * for the walk once. The SQLite files are checked every time, since SVC_DATABASE_URL may put them
 * outside the data folder. Symlinks are left alone (their targets are not ours to change).
 */
export function tightenDataFolder(config: Pick<RelayConfig, 'dataDir' | 'database'>): TightenedModes {
  const result: TightenedModes = { folders: 0, files: 0, failed: 0 };
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // The folder itself may be a symlink the operator made (to another disk): it is followed.
  if (tighten(config.dataDir, result, statSync)) tightenBelow(config.dataDir, result);
  if (config.database.type === 'sqlite') {
    for (const suffix of SQLITE_FILES) tighten(config.database.path + suffix, result);
  }
  return result;
}

/** One line for the log when anything changed, else null. */
export function describeTightened(dataDir: string, tightened: TightenedModes): string | null {
  if (!tightened.folders && !tightened.files && !tightened.failed) return null;
  const failed = tightened.failed ? `; ${tightened.failed} could not be changed (${tightened.firstFailure})` : '';
  return (
    `Data folder was open to other local users: group and others' access removed from ` +
    `${tightened.folders} folder(s) and ${tightened.files} file(s) in ${dataDir}${failed}`
  );
}

function tightenBelow(root: string, result: TightenedModes): void {
  const folders = [root];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) folders.push(path);
      tighten(path, result);
    }
  }
}

/** Removes group and others' bits from a folder or regular file; true when it had any. */
function tighten(path: string, result: TightenedModes, stat = lstatSync): boolean {
  let info;
  try {
    info = stat(path);
  } catch {
    return false; // vanished, or an SQLite side file that does not exist now
  }
  if (!(info.isDirectory() || info.isFile()) || !(info.mode & GROUP_AND_OTHERS)) return false;
  try {
    chmodSync(path, info.mode & 0o777 & ~GROUP_AND_OTHERS);
    if (info.isDirectory()) result.folders++;
    else result.files++;
  } catch (err) {
    result.failed++;
    result.firstFailure ??= `${path}: ${(err as Error).message}`;
  }
  return true;
}
