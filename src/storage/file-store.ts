import type { Readable } from 'node:stream';

/**
 * Every folder of stored files, as key prefixes (the features own what is inside: builds, images,
 * recordings). `svc backup` archives exactly these; the data folder has them from the first start.
 */
export const STORED_FOLDERS = ['builds/', 'uploads/avatars/', 'uploads/logos/', 'uploads/comments/', 'recordings/'];

/** An inclusive byte range, as HTTP `Range` and S3's ranged GET count. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where every stored file lives (builds, images, comment attachments, recordings), behind one
 * interface with two backends: the data folder (`DiskFileStore`, the default) and S3-compatible
 * object storage (`S3FileStore`, `SVC_STORAGE_URL=s3://…`). Feature modules own their keys (a
 * prefix per kind of file and the names under it) and ask the store; they never touch the backend.
 *
 * Files enter the store finished: an upload is received into a local temp file (limits applied while
 * bytes arrive), checked there, then `put()` moves it in: a rename on disk, a multipart upload to S3.
 */
export abstract class FileStore {
  /** Human-readable location for logs and `svc` output (a folder, or `s3://bucket/prefix`). */
  abstract readonly location: string;

  /**
   * Moves a finished local file into the store under `key` (the local file is gone afterwards, on
   * success). A failed put leaves no object behind (an S3 multipart upload is aborted).
   */
  abstract put(key: string, localPath: string, contentType?: string): Promise<void>;

  /** Size and modification time, or null when there is no such file. */
  abstract stat(key: string): Promise<{ size: number; modifiedMs: number } | null>;

  /** Streams the file, or the given inclusive range of it. Rejects when the file is missing. */
  abstract read(key: string, range?: ByteRange): Promise<Readable>;

  /** Deletes files; one already gone is fine. */
  abstract remove(keys: string[]): Promise<void>;

  /**
   * The keys of the files directly in the folder `prefix` (ending in `/`), in no particular order.
   * Keys are relative to the store's root with forward slashes: `builds/<name>`, `uploads/avatars/<name>`.
   */
  abstract list(prefix: string): AsyncIterable<string>;

  /** The file's path on this machine when the backend is the data folder (Express's `send` serves it), else null. */
  abstract localPath(key: string): string | null;

  /** Throws when the store cannot be reached (the health check). */
  abstract check(): Promise<void>;

  /** Releases connections (the relay's shutdown, the end of a CLI command). */
  abstract close(): void;
}
