import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import type { LimitsConfig } from '../config/relay-config';

/**
 * Node's default `requestTimeout` (300 s for the whole request) would cut off a 500 MB build
 * uploaded at under ~1.7 MB/s. The relay turns that whole-request deadline off and instead closes
 * a connection after it has been silent for REQUEST_IDLE_TIMEOUT_MS while a request is in flight,
 * so a slow upload that keeps sending is never cut, while a stalled one (or a slowloris body) is.
 * Headers must still arrive within HEADERS_TIMEOUT_MS, and idle keep-alive connections still
 * close after Node's keepAliveTimeout. WebSocket upgrades do not pass through Express, so this
 * idle timer never applies to them. Routes that are not streamed uploads also have a whole-request
 * deadline (`requestDeadline`, SVC_REQUEST_TIMEOUT_MS), so a body trickling in a byte at a time
 * cannot hold a connection for ever.
 *
 * `maxConnections` (SVC_MAX_CONNECTIONS) caps open TCP connections, WebSockets included: Node
 * closes a connection past the cap as soon as it is accepted.
 */
export const REQUEST_IDLE_TIMEOUT_MS = 120_000;
export const HEADERS_TIMEOUT_MS = 60_000;

export function applyServerTimeouts(server: Server, limits: Pick<LimitsConfig, 'maxConnections'>): void {
  server.requestTimeout = 0;
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}

/** Per request: a silent socket is destroyed by Node's own socket-timeout handler. */
export function requestIdleTimeout(req: Request, _res: Response, next: NextFunction): void {
  req.socket.setTimeout(REQUEST_IDLE_TIMEOUT_MS);
  next();
}
