import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { clientAddress } from '../common/net/relay-host';

/** One line per request: `METHOD path status ms client`. The query string is left out (it may hold tokens). */
@Injectable()
export class RequestLoggerMiddleware implements NestMiddleware {
  private readonly logger = new Logger('HTTP');

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const path = (req.originalUrl ?? req.url).split('?')[0];
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      this.logger.log(`${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${clientAddress(req)}`);
    });
    next();
  }
}
