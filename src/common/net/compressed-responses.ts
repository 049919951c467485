import type { NextFunction, Request, Response } from 'express';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { preferredCoding, type ContentCoding } from './content-coding';

/** Below this a compressed answer saves less than a packet; the work is not worth it. */
const MIN_BYTES = 1024;
/** JSON answers are at most a few MB (a page of 100 builds is ~50 KB); anything larger goes as it is. */
const MAX_BYTES = 8 * 1024 * 1024;
/** Documents the relay writes whole: JSON, its HTML pages, /metrics. Files, streams and media are never these. */
const COMPRESSIBLE = /^(application\/json|text\/html|text\/plain)\s*(;|$)/i;

/**
 * Compresses an answer written whole in one `res.end(body)` (Express's `res.send`/`res.json`)
 * when it is JSON, HTML or plain text over 1 KB and the client accepts br or gzip:
 * brotli at quality 4 or gzip at level 1, the fast levels (a list page of 15 KB shrinks about
 * 20-fold either way), on zlib's thread pool so the event loop never waits for it.
 *
 * What it never touches, by construction: anything written in pieces before its end (file
 * downloads and recordings piped by `send`, which also honour Range; the live event stream, which
 * must reach the browser event by event), HEAD, 204 and 304, an answer that already has a
 * Content-Encoding or says `no-transform`, and WebSocket upgrades (they never reach Express).
 * The ETag Express computed over the uncompressed JSON is made weak on a compressed answer
 * (as nginx does): the bytes differ, the content is the same, and If-None-Match still gets a 304.
 */
export function compressResponses(req: Request, res: Response, next: NextFunction): void {
  const end = res.end;
  res.end = function compressedEnd(this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown): Response {
    res.end = end;
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    const type = res.getHeader('Content-Type');
    if (typeof chunk === 'function' || chunk == null || res.headersSent || typeof type !== 'string' || !COMPRESSIBLE.test(type)) {
      return end.apply(this, arguments as unknown as Parameters<Response['end']>);
    }
    // res.vary parses what Vary already holds; most answers hold none.
    if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Accept-Encoding');
    else res.vary('Accept-Encoding');
    const body = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, (encoding as BufferEncoding | undefined) ?? 'utf8');
    const coding = compressible(req, res, body) ? preferredCoding(req) : null;
    const finish = (out: Buffer) => (end as (body: Buffer, done?: () => void) => Response).call(res, out, callback as () => void);
    if (!coding) return finish(body);
    compress(coding, body, (err, out) => {
      // Ended meanwhile (the request's deadline answered 408): nothing left to send.
      if (res.headersSent || res.writableEnded) return;
      if (err || out.length >= body.length) return finish(body);
      res.setHeader('Content-Encoding', coding);
      res.setHeader('Content-Length', out.length);
      const etag = res.getHeader('ETag');
      if (typeof etag === 'string' && !etag.startsWith('W/')) res.setHeader('ETag', `W/${etag}`);
      finish(out);
    });
    return this;
  } as Response['end'];
  next();
}

function compressible(req: Request, res: Response, body: Buffer): boolean {
  if (req.method === 'HEAD' || res.statusCode < 200 || res.statusCode === 204 || res.statusCode === 304) return false;
  if (body.length < MIN_BYTES || body.length > MAX_BYTES || res.getHeader('Content-Encoding')) return false;
  return !/no-transform/i.test(String(res.getHeader('Cache-Control') ?? ''));
}

function compress(coding: ContentCoding, body: Buffer, done: (err: Error | null, out: Buffer) => void): void {
  if (coding === 'gzip') return gzip(body, { level: 1 }, done);
  brotliCompress(
    body,
    { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } },
    done,
  );
}
