import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { clientAddress } from '../common/net/relay-host';

const logger = new Logger('HTTP');

/**
 * One line per request, written when the response finishes: `METHOD path status ms client`.
 * The query string is left out (it may hold tokens); the path is masked like every log line.
 */
export function logRequests(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  const path = (req.originalUrl ?? req.url).split('?')[0];
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.log(`${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${clientAddress(req)}`);
  });
  next();
}
