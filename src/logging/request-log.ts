import type { LoggerService } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { clientAddress } from '../common/net/relay-host';

/** A refused request's URL is logged whole up to this many characters (a header may be 16 KB). */
const MAX_LOGGED_URL = 2048;

/**
 * One line per request, written when the response finishes: `METHOD path status ms client`, in the
 * `HTTP` context. The query string of an answered request is left out (it may hold tokens, and it is
 * noise); a refused request (4xx/5xx) is logged with its whole URL, since the query string may be
 * what it tried (a path in it, another upload's id). Every line is masked by the logger, tokens included.
 *
 * Written to the app's own logger, not through Nest's static `Logger`: that one copies its arguments
 * into a new array (a context appended) on every call, and in a process with several relays (the
 * tests) it writes to whichever started last.
 */
export function logRequests(logger: Pick<LoggerService, 'log'>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const url = req.originalUrl ?? req.url;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const query = url.indexOf('?');
      const shown = res.statusCode >= 400 ? url.slice(0, MAX_LOGGED_URL) : query < 0 ? url : url.slice(0, query);
      logger.log(`${req.method} ${shown} ${res.statusCode} ${ms.toFixed(1)}ms ${clientAddress(req)}`, 'HTTP');
    });
    next();
  };
}
