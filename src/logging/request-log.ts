import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { clientAddress } from '../common/net/relay-host';

const logger = new Logger('HTTP');
/** A refused request's URL is logged whole up to this many characters (a header may be 16 KB). */
const MAX_LOGGED_URL = 2048;

/**
 * One line per request, written when the response finishes: `METHOD path status ms client`.
 * The query string of an answered request is left out (it may hold tokens, and it is noise); a
 * refused request (4xx/5xx) is logged with its whole URL, since the query string may be what it
 * tried (a path in it, another upload's id). Every line is masked by the logger, tokens included.
 */
export function logRequests(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  const url = req.originalUrl ?? req.url;
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const shown = res.statusCode >= 400 ? url.slice(0, MAX_LOGGED_URL) : url.split('?')[0];
    logger.log(`${req.method} ${shown} ${res.statusCode} ${ms.toFixed(1)}ms ${clientAddress(req)}`);
  });
  next();
}
