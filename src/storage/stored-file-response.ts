import type { Response } from 'express';
import parseRange from 'range-parser';
import { pipeline } from 'node:stream/promises';
import { sendStoredFile, StoredFileOptions } from '../common/api/send-stored-file';
import { FileStore } from './file-store';

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
  if (local !== null) return sendStoredFile(res, local, options, notFoundMessage);

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
