import { HttpException, Logger } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { createServer, IncomingMessage, STATUS_CODES, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import type { WebSocket, WebSocketServer } from 'ws';
import { CloseCode } from './close-codes';
import { AccessRequirement, AUTH_REQUIREMENT } from '../auth/auth.decorator';
import type { Principal } from '../auth/principal';
import { CredentialExpiry, expiringWebSocket } from './credential-expiry';

/** The authenticator the HTTP guard uses, applied to an upgrade request and the gateway's @Auth. */
export type UpgradeAuthenticator = (req: IncomingMessage, requirement: AccessRequirement) => Promise<Principal | undefined>;

/**
 * A gateway's own admission rules after authentication (an agent name, a known session), before any
 * WebSocket exists; its result travels with the request. Throw an HttpException to refuse.
 */
export type UpgradeAuthorizer<T> = (req: IncomingMessage, params: Record<string, string>, principal: Principal) => T | Promise<T>;

interface Admission {
  requirement: AccessRequirement;
  authorize: UpgradeAuthorizer<unknown>;
}

interface Route {
  server: WebSocketServer;
  pattern: RegExp;
  names: string[];
}

const admissions = new WeakMap<WebSocketServer, Admission>();
const contexts = new WeakMap<IncomingMessage, unknown>();

/**
 * Called by a gateway in afterInit(): every upgrade to its path is authenticated with the gateway
 * class's `@Auth` (the same authenticator and rules as HTTP routes), then passes `authorize`.
 * A gateway without `@Auth` stops the relay at start-up; a path nobody registered refuses upgrades.
 */
export function authorizeUpgrades<T>(server: WebSocketServer, gateway: object, authorize: UpgradeAuthorizer<T>): void {
  const requirement = Reflect.getMetadata(AUTH_REQUIREMENT, gateway.constructor) as AccessRequirement | undefined;
  if (!requirement || requirement.public) {
    throw new Error(`${gateway.constructor.name} needs @Auth with credentials: WebSocket upgrades are never public`);
  }
  admissions.set(server, { requirement, authorize });
}

/** What the gateway's authorizer returned for this upgrade request (in handleConnection). */
export function upgradeContext<T>(req: IncomingMessage): T | undefined {
  return contexts.get(req) as T | undefined;
}

/**
 * The Nest `ws` adapter, with the HTTP upgrade answered by us rather than by `ws`:
 * - a gateway path may hold `:params` (`/api/v1/sessions/:sessionId/connect`);
 * - the upgrade is authenticated by the relay's one authenticator with the gateway's `@Auth`, then
 *   the gateway's authorizer runs, all before the handshake, so a refusal is a real HTTP status
 *   with a JSON `{ error }` body, never a 101 followed by a close (Nest guards do not run on
 *   connection);
 * - once the gateway has registered the socket, the credential is checked again (a revocation or
 *   demotion in between found no socket to close), and the socket is closed when the credential
 *   expires: 4001 (revoked or expired) or 4003 (no longer allowed), agent-protocol §1;
 * - an unknown path gets 404 and the socket is closed instead of left hanging.
 * Gateways here read frames themselves (the agent protocol has `type`, not Nest's `event`), so the
 * adapter does not parse messages for them.
 */
export class UpgradeRoutingWsAdapter extends WsAdapter {
  private readonly log = new Logger('WebSocket');
  private readonly routes: Route[] = [];
  private goingAwayDone: Promise<void> | null = null;

  /**
   * Nest's WsAdapter is handed a decoy HTTP server that never listens: its create() then makes
   * `noServer` ws servers and hangs its own 'upgrade' listener (exact paths only, unmatched sockets
   * destroyed without an answer) on the decoy. The relay's server gets ours instead (public APIs
   * only: Node's 'upgrade' event, ws's handleUpgrade, the adapter's public create()).
   */
  constructor(
    app: INestApplication,
    private readonly authenticate: UpgradeAuthenticator,
    private readonly expiry: CredentialExpiry,
  ) {
    super(createServer());
    (app.getHttpServer() as HttpServer).on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch((err) => {
        this.log.error(`Upgrade failed: ${(err as Error).message}`, (err as Error).stack);
        refuse(socket, 500, 'Internal server error');
      });
    });
  }

  /** A gateway's server: registered under its path (`:params` allowed) for our 'upgrade' listener. */
  override create(port: number, options?: Record<string, unknown> & { path?: string }): WebSocketServer {
    if (port !== 0 || typeof options?.path !== 'string') {
      throw new Error('A gateway here shares the relay\'s HTTP server: @WebSocketGateway({ path }) without a port');
    }
    const server = super.create(port, options) as WebSocketServer;
    const names: string[] = [];
    const source = normalizePath(options.path)
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.routes.push({ server, pattern: new RegExp(`^${source}$`), names });
    return server;
  }

  override bindMessageHandlers(
    client: unknown,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    if (handlers.length) super.bindMessageHandlers(client, handlers, transform);
  }

  /**
   * The relay is stopping (agent-protocol §1): from now on every upgrade is refused with 503, and
   * every open socket of every gateway (registered or still in its first messages) is closed with
   * 1001. Waits up to `graceMs` for the peers to answer the close, then cuts the rest. Idempotent:
   * later calls wait for the first.
   */
  goingAway(graceMs: number): Promise<void> {
    this.goingAwayDone ??= Promise.all(
      this.routes.flatMap((route) => [...route.server.clients].map((ws) => closeWithin(ws, graceMs))),
    ).then(() => undefined);
    return this.goingAwayDone;
  }

  /** Nest calls this for each gateway server in app.close(): 1001 rather than the base class's terminate(). */
  override async close(server: WebSocketServer): Promise<void> {
    await this.goingAway(GOING_AWAY_GRACE_MS);
    await super.close(server);
  }

  override async dispose(): Promise<void> {
    this.expiry.stop();
    await super.dispose();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    if (this.goingAwayDone) return refuse(socket, 503, SHUTTING_DOWN);
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'ws://relay').pathname;
    } catch {
      return refuse(socket, 400, 'Bad request');
    }
    for (const route of this.routes) {
      const match = route.pattern.exec(pathname);
      if (!match) continue;
      const params: Record<string, string> = {};
      try {
        route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1])));
      } catch {
        return refuse(socket, 400, 'Bad request');
      }
      const admission = admissions.get(route.server);
      if (!admission) {
        this.log.error(`The WebSocket path ${pathname} has no authorizer; refused`);
        return refuse(socket, 403, 'Forbidden');
      }
      let principal: Principal;
      try {
        principal = (await this.authenticate(req, admission.requirement))!;
        contexts.set(req, await admission.authorize(req, params, principal));
      } catch (err) {
        if (err instanceof HttpException) return refuse(socket, err.getStatus(), err.message);
        throw err;
      }
      if (socket.destroyed) return;
      // Authentication took a moment: the relay may have started stopping meanwhile.
      if (this.goingAwayDone) return refuse(socket, 503, SHUTTING_DOWN);
      route.server.handleUpgrade(req, socket, head, (ws) => {
        route.server.emit('connection', ws, req);
        this.watchCredential(ws, req, admission.requirement, principal);
      });
      return;
    }
    refuse(socket, 404, 'Not found');
  }

  /** After the gateway registered the socket: check the credential again, and close it when it expires. */
  private watchCredential(ws: WebSocket, req: IncomingMessage, requirement: AccessRequirement, principal: Principal): void {
    if (ws.readyState !== ws.OPEN) return;
    this.expiry.watch(expiringWebSocket(ws), principal.expiresAt);
    this.authenticate(req, requirement).then(
      () => undefined,
      (err: unknown) => {
        if (!(err instanceof HttpException)) {
          this.log.error(`Re-checking a WebSocket credential failed: ${(err as Error).message}`, (err as Error).stack);
          return;
        }
        const code = err.getStatus() === 401 ? CloseCode.revoked : CloseCode.forbidden;
        this.log.log(`Closed a WebSocket on ${req.url?.split('?')[0]} (${code}): its credential changed while it connected`);
        if (ws.readyState === ws.OPEN) ws.close(code, err.getStatus() === 401 ? 'credential revoked' : 'no longer allowed');
      },
    );
  }
}
/** How long app.close() waits for peers to answer the 1001 close (graceful shutdown passes its own). */
export const GOING_AWAY_GRACE_MS = 1000;
const SHUTTING_DOWN = 'The relay is shutting down';

/** Close with 1001; resolves when the peer answered or `graceMs` passed (then the socket is cut). */
function closeWithin(ws: WebSocket, graceMs: number): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      ws.terminate();
      done();
    }, graceMs);
    ws.once('close', () => {
      clearTimeout(timer);
      done();
    });
    if (ws.readyState === ws.OPEN) ws.close(CloseCode.goingAway, 'relay shutting down');
  });
}

/** As Nest normalises a gateway's path: one leading slash, none trailing, no empty segments. */
function normalizePath(path: string): string {
  return '/' + path.split('/').filter(Boolean).join('/');
}

/** A plain HTTP answer on the upgrade socket, then close it. */
function refuse(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' +
      body,
  );
}
