import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';

const deadlines = new WeakMap<IncomingMessage, NodeJS.Timeout>();

/**
 * A whole-request deadline: a request whose body has not fully arrived `timeoutMs` after it
 * started is answered 408 and its connection closed. The idle timer alone cannot stop a client
 * that sends one byte every few seconds (each byte resets it), which would hold a connection and
 * a parser open for ever on a 1 MB JSON route. Streamed uploads (multipart: builds, recordings,
 * images) leave this deadline as soon as their receiver starts reading (`leaveRequestDeadline`):
 * a 500 MB build on a slow line must not be cut while bytes keep coming; the idle timer still
 * applies to them. A slow handler with a complete body is not the client's doing and is not cut.
 */
export function requestDeadline(timeoutMs: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // Without a body the request is complete once its headers are in: nothing for a deadline to cut
    // (its timer would find `req.complete`), and GETs are most requests.
    if (!hasRequestBody(req)) return next();
    const timer = setTimeout(() => {
      deadlines.delete(req);
      if (req.complete || res.headersSent) return;
      const body = JSON.stringify({ error: 'Request timed out' });
      res.writeHead(408, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      res.end(body, () => req.socket.destroy());
    }, timeoutMs);
    timer.unref();
    deadlines.set(req, timer);
    res.once('close', () => leaveRequestDeadline(req));
    next();
  };
}

/**
 * Whether a body follows the headers: a Transfer-Encoding, or a numeric Content-Length (0
 * included), as body-parser and type-is decide it.
 */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && !isNaN(length as unknown as number));
}

/** For streamed uploads: from now on only the idle timer limits this request. */
export function leaveRequestDeadline(req: IncomingMessage): void {
  clearTimeout(deadlines.get(req));
  deadlines.delete(req);
}
