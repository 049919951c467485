import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { AUDIT_HEAD_KEY_FILE } from '../../audit/audit-head';

/**
 * A backup archive is a tar with, in this order:
 *   svc.sqlite       a consistent copy of the database (VACUUM INTO, taken while the relay runs)
 *   audit-head.key   the key that signs the audit log's head, when the data folder holds one (without
 *                    it a restored log could not be verified; docs/audit.md)
 *   files/<path>     every stored file under the data dir (builds, uploads, recordings), same layout
 *   manifest.json    this manifest: what the archive holds, with sizes and SHA-256 sums
 * The manifest comes last because the sums are computed while the files stream into the archive.
 */
export const BACKUP_FORMAT = 'svc-relay-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const DATABASE_ENTRY = 'svc.sqlite';
/** The same name as in the data folder. */
export const AUDIT_KEY_ENTRY = AUDIT_HEAD_KEY_FILE;
export const FILES_PREFIX = 'files/';
export const MANIFEST_ENTRY = 'manifest.json';

export interface ManifestFile {
  /** Relative to the data dir, with forward slashes. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  createdAt: string;
  relayVersion: string;
  database: { bytes: number; sha256: string };
  /** Absent when the relay signs with SVC_SECRETS_KEY (no key file), and in archives made before issue 36. */
  auditHeadKey?: { bytes: number; sha256: string };
  files: ManifestFile[];
  /** Files that vanished between listing and copying (a purge ran meanwhile). */
  skipped: string[];
}

/** A pass-through stream that counts and hashes what flows through it. */
export class HashingStream extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Rejects archive paths that would land outside the data dir. */
export function safeRelativePath(path: string): string | null {
  const parts = path.split('/');
  if (!path || path.startsWith('/') || parts.some((p) => p === '..' || p === '' || p.includes('\\'))) return null;
  return path;
}
