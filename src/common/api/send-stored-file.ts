import type { Response } from 'express';
import { ErrorMessages } from '../errors/error-messages';

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
export function sendStoredFile(res: Response, path: string, options: StoredFileOptions, notFoundMessage: string): Promise<void> {
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
