import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets/gateway-metadata-explorer';
import { IncomingMessage, STATUS_CODES, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import type { WebSocketServer } from 'ws';

/** Thrown by an upgrade authorizer: the upgrade is answered with this plain HTTP status and `{ error }`. */
export class UpgradeRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Decides, before any WebSocket exists, whether an upgrade may proceed; its result travels with the request. */
export type UpgradeAuthorizer = (req: IncomingMessage, params: Record<string, string>) => Promise<unknown>;

interface Route {
  server: WebSocketServer;
  pattern: RegExp;
  names: string[];
}

const authorizers = new WeakMap<WebSocketServer, UpgradeAuthorizer>();
const contexts = new WeakMap<IncomingMessage, unknown>();

/** Called by a gateway in afterInit(): every upgrade to its path goes through `authorize` first. */
export function authorizeUpgrades(server: WebSocketServer, authorize: UpgradeAuthorizer): void {
  authorizers.set(server, authorize);
}

/** What the authorizer returned for this upgrade request (in handleConnection). */
export function upgradeContext<T>(req: IncomingMessage): T | undefined {
  return contexts.get(req) as T | undefined;
}

/**
 * The Nest `ws` adapter, with the HTTP upgrade answered by us rather than by `ws`:
 * - a gateway path may hold `:params` (`/api/v1/sessions/:sessionId/connect`);
 * - the gateway's authorizer runs before the handshake, so a refusal is a real HTTP status with a
 *   JSON `{ error }` body, never a 101 followed by a close (Nest guards do not run on connection);
 * - an unknown path gets 404 and the socket is closed instead of left hanging.
 * Gateways here read frames themselves (the agent protocol has `type`, not Nest's `event`), so the
 * adapter does not parse messages for them.
 */
export class RelayWsAdapter extends WsAdapter {
  private readonly routes: Route[] = [];

  protected override addWsServerToRegistry<T extends Record<'path', string> = any>(
    wsServer: T,
    port: number,
    path: string,
  ): void {
    super.addWsServerToRegistry(wsServer, port, path);
    const names: string[] = [];
    const source = wsServer.path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.routes.push({ server: wsServer as unknown as WebSocketServer, pattern: new RegExp(`^${source}$`), names });
  }

  protected override ensureHttpServerExists(port: number, httpServer?: HttpServer): HttpServer | undefined {
    if (this.httpServersRegistry.has(port) || !httpServer) return super.ensureHttpServerExists(port, httpServer);
    this.httpServersRegistry.set(port, httpServer);
    httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch(() => refuse(socket, 500, 'Internal server error'));
    });
    return httpServer;
  }

  override bindMessageHandlers(
    client: unknown,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    if (handlers.length) super.bindMessageHandlers(client, handlers, transform);
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
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
      const authorize = authorizers.get(route.server);
      if (authorize) {
        try {
          contexts.set(req, await authorize(req, params));
        } catch (err) {
          if (err instanceof UpgradeRefusal) return refuse(socket, err.status, err.message);
          throw err;
        }
      }
      if (socket.destroyed) return;
      route.server.handleUpgrade(req, socket, head, (ws) => route.server.emit('connection', ws, req));
      return;
    }
    refuse(socket, 404, 'Not found');
  }
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
