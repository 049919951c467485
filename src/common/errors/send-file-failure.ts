import type { Response } from 'express';
import { ErrorMessages } from './error-messages';

/** The error Express's `send` hands to a `sendFile` / `download` callback. */
export interface SendFileError extends Error {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * Answers a failed file response as spec §7 wants every error: JSON `{ "error" }`. The file's
 * headers (its Content-Type, Content-Disposition) were set before `send` failed, so they are
 * removed first: otherwise the JSON error would go out labelled as the file. A 416 keeps the
 * `Content-Range: bytes *\/<size>` that `send` supplies; a file gone from disk is 404.
 */
export function sendFileFailure(res: Response, err: SendFileError, notFoundMessage: string): void {
  for (const name of ['Content-Type', 'Content-Disposition', 'Content-Length', 'Last-Modified', 'ETag', 'Accept-Ranges']) {
    res.removeHeader(name);
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  if (err.status === 416) res.status(416).json({ error: 'Range not satisfiable' });
  else if (err.status === 404) res.status(404).json({ error: notFoundMessage });
  else res.status(500).json({ error: ErrorMessages.internal });
}
