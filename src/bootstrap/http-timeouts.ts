import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import type { LimitsConfig } from '../config/relay-config';

/**
 * Node's default `requestTimeout` (300 s for the whole request) would cut off a 500 MB build
 * uploaded at under ~1.7 MB/s. The relay turns that whole-request deadline off and instead closes
 * a connection after it has been silent for REQUEST_IDLE_TIMEOUT_MS while a request is in flight,
 * so a slow upload that keeps sending is never cut, while a stalled one (or a slowloris body) is.
 * Routes that are not streamed uploads also have a whole-request deadline (`requestDeadline`,
 * SVC_REQUEST_TIMEOUT_MS), so a body trickling in a byte at a time cannot hold a connection for ever.
 *
 * The request head must be complete within `headersTimeoutMs` (SVC_HEADERS_TIMEOUT_MS, 10 s) of
 * the connection opening (or of the previous response, on a kept-alive connection): Node measures
 * it from the connection's start, so a socket that sends nothing at all is closed by the same
 * rule. Node only checks every `connectionsCheckingInterval` (30 s by default, which alone made a
 * 10 s timeout up to 40 s), so the relay checks a few times per timeout. Once the head is complete
 * the timeout no longer applies: WebSocket upgrades and event streams live on.
 *
 * `maxConnections` (SVC_MAX_CONNECTIONS) caps open TCP connections, WebSockets included: Node
 * closes a connection past the cap as soon as it is accepted (see also connection-shares.ts).
 */
export const REQUEST_IDLE_TIMEOUT_MS = 120_000;

/** How often Node looks for connections past the headers timeout (an option of createServer only). */
export function headersCheckIntervalMs(limits: Pick<LimitsConfig, 'headersTimeoutMs'>): number {
  return Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 5)));
}

export function applyServerTimeouts(server: Server, limits: Pick<LimitsConfig, 'maxConnections' | 'headersTimeoutMs'>): void {
  server.requestTimeout = 0;
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
}

/** Per request: a silent socket is destroyed by Node's own socket-timeout handler. */
export function requestIdleTimeout(req: Request, _res: Response, next: NextFunction): void {
  req.socket.setTimeout(REQUEST_IDLE_TIMEOUT_MS);
  next();
}
