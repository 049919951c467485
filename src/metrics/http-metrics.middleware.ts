import type { NextFunction, Request, Response } from 'express';
import type { RelayMetrics } from './relay-metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every HTTP response by the route template that answered it
 * (`/api/v1/builds/:id`, never the id itself, so the series stay few). Requests answered before
 * any route matched (dashboard files, unknown paths, bodies refused by the parser) are `none`.
 */
export function recordHttpMetrics(metrics: RelayMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = typeof req.route?.path === 'string' ? req.route.path : 'none';
      metrics.httpRequest(route, METHODS.has(req.method) ? req.method : 'OTHER', res.statusCode, seconds);
    });
    next();
  };
}
