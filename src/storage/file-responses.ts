import type { Response } from 'express';
import parseRange from 'range-parser';
import { pipeline } from 'node:stream/promises';
import { ErrorMessages } from '../common/errors/error-messages';
import { FileStore } from './file-store';

/**
 * File responses for stored files (builds, recordings): Content-Length, Last-Modified, Range, and
 * `{ "error" }` when sending fails, from the data folder or from object storage alike.
 */

/** The error Express's `send` hands to a `sendFile` / `download` callback. */
interface SendFileError extends Error {
  status?: number;
  headers?: Record<string, string>;
}

export interface StoredFileOptions {
  /** Headers of the file response (Content-Type, caching, CSP). */
  headers: Record<string, string>;
  /** When set, the file goes out as an attachment under this name (RFC 6266-encoded by Express). */
  downloadName?: string;
  /** `send`'s answer to a path with a dot-segment: recordings deny, builds allow (generated names). */
  dotfiles: 'allow' | 'deny';
}

/**
 * Streams a stored file with Express's `send`: Content-Length, Last-Modified, Range (206 / 416).
 * Resolves when the response is done; a failure is answered as JSON by sendFileFailure().
 */
function sendLocalFile(res: Response, path: string, options: StoredFileOptions, notFoundMessage: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (err?: SendFileError) => {
      if (err && !res.headersSent) sendFileFailure(res, err, notFoundMessage);
      resolve();
    };
    const sendOptions = { acceptRanges: true, lastModified: true, dotfiles: options.dotfiles, headers: options.headers };
    if (options.downloadName === undefined) res.sendFile(path, sendOptions, done);
    else res.download(path, options.downloadName, sendOptions, done);
  });
}

/**
 * Answers a failed file response as spec §7 wants every error: JSON `{ "error" }`. The file's
 * headers (its Content-Type, Content-Disposition) were set before `send` failed, so they are
 * removed first: otherwise the JSON error would go out labelled as the file. A 416 keeps the
 * `Content-Range: bytes *\/<size>` that `send` supplies; a file gone from disk is 404.
 */
function sendFileFailure(res: Response, err: SendFileError, notFoundMessage: string): void {
  for (const name of ['Content-Type', 'Content-Disposition', 'Content-Length', 'Last-Modified', 'ETag', 'Accept-Ranges']) {
    res.removeHeader(name);
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  if (err.status === 416) res.status(416).json({ error: 'Range not satisfiable' });
  else if (err.status === 404) res.status(404).json({ error: notFoundMessage });
  else res.status(500).json({ error: ErrorMessages.internal });
}

/**
 * Answers a GET for a stored file with Content-Length and Range (206 / 416), errors as JSON.
 * From the data folder Express's `send` does it (as before object storage existed); from S3 the
 * same headers are written here and the bytes stream from a ranged GET, never through memory.
 * Only a single range is honoured; a multi-range request gets the whole file (as `send` does).
 */
export async function sendFromStore(
  res: Response,
  store: FileStore,
  key: string,
  options: StoredFileOptions,
  notFoundMessage: string,
): Promise<void> {
  const local = store.localPath(key);
  if (local !== null) return sendLocalFile(res, local, options, notFoundMessage);

  const info = await store.stat(key);
  if (!info) {
    res.status(404).json({ error: notFoundMessage });
    return;
  }
  const header = res.req.headers.range;
  const ranges = header ? parseRange(info.size, header, { combine: true }) : -2;
  if (ranges === -1) {
    res.setHeader('Content-Range', `bytes */${info.size}`);
    res.status(416).json({ error: 'Range not satisfiable' });
    return;
  }
  const range = Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1 ? ranges[0] : undefined;

  if (options.downloadName !== undefined) res.attachment(options.downloadName);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Last-Modified', new Date(info.modifiedMs).toUTCString());
  for (const [name, value] of Object.entries(options.headers)) res.setHeader(name, value);
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : info.size));
  if (res.req.method === 'HEAD' || info.size === 0) {
    res.end();
    return;
  }
  let body;
  try {
    body = await store.read(key, range ?? { start: 0, end: info.size - 1 });
  } catch {
    // Removed between the stat and the read (a purge): nothing was sent yet, so a JSON error still fits.
    for (const name of ['Content-Type', 'Content-Disposition', 'Content-Length', 'Content-Range', 'Last-Modified', 'Accept-Ranges']) {
      res.removeHeader(name);
    }
    res.status(404).json({ error: notFoundMessage });
    return;
  }
  // A client that goes away mid-file ends the pipeline; the S3 socket is released with it.
  await pipeline(body, res).catch(() => res.destroy());
}
