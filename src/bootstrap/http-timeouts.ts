import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';

/**
 * Node's default `requestTimeout` (300 s for the whole request) would cut off a 500 MB build
 * uploaded at under ~1.7 MB/s. The relay turns that whole-request deadline off and instead closes
 * a connection after it has been silent for REQUEST_IDLE_TIMEOUT_MS while a request is in flight,
 * so a slow upload that keeps sending is never cut, while a stalled one (or a slowloris body) is.
 * Headers must still arrive within HEADERS_TIMEOUT_MS, and idle keep-alive connections still
 * close after Node's keepAliveTimeout. WebSocket upgrades do not pass through Express, so this
 * idle timer never applies to them.
 */
export const REQUEST_IDLE_TIMEOUT_MS = 120_000;
export const HEADERS_TIMEOUT_MS = 60_000;

export function applyServerTimeouts(server: Server): void {
  server.requestTimeout = 0;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}

/** Per request: a silent socket is destroyed by Node's own socket-timeout handler. */
export function requestIdleTimeout(req: Request, _res: Response, next: NextFunction): void {
  req.socket.setTimeout(REQUEST_IDLE_TIMEOUT_MS);
  next();
}
