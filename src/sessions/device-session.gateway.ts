import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { RpcOutcome } from '../agents/agent-rpc.service';
import {
  ClientRequest,
  CloseCode,
  DEVICE_SESSION_CONNECT_PATH,
  encodeBinaryFrame,
  MAX_MESSAGE_BYTES,
  parseClientRequest,
} from '../agents/protocol/agent-protocol';
import { AuthenticatorService, bearerToken } from '../auth/authenticator.service';
import { readSessionCookie } from '../auth/session-cookie';
import type { Principal } from '../common/auth/principal';
import { ErrorMessages } from '../common/errors/error-messages';
import { authorizeUpgrades, UpgradeRefusal, upgradeContext } from '../common/net/relay-ws-adapter';
import { WsHeartbeat } from '../common/net/ws-heartbeat';
import { RelayConfig } from '../config/relay-config';
import { DeviceSessionClient, DeviceSessionClients } from './device-session-clients.service';
import { DeviceSessionsService, SESSION_NOT_FOUND } from './device-sessions.service';

interface ClientUpgrade {
  sessionId: string;
  principal: Principal;
}

/** Client frames are requests: far below the agents' 32 MiB. */
const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

/**
 * Automation clients' sockets (agent-protocol §3): authenticated at the upgrade like REST sessions
 * routes (cookie or PAT(view)), then each request is forwarded to the owning agent under a fresh id
 * and answered under the client's own id. Fan-out of events and the closes live in the listener.
 */
@WebSocketGateway({ path: DEVICE_SESSION_CONNECT_PATH, maxPayload: MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false })
export class DeviceSessionGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeviceSessions');
  private heartbeat: WsHeartbeat | null = null;

  constructor(
    private readonly authenticator: AuthenticatorService,
    private readonly sessions: DeviceSessionsService,
    private readonly clients: DeviceSessionClients,
    private readonly config: RelayConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    authorizeUpgrades(server, (req, params) => this.authorize(req, params.sessionId));
    this.heartbeat = new WsHeartbeat(this.config.agents.pingIntervalMs);
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const upgrade = upgradeContext<ClientUpgrade>(req);
    if (!upgrade) return socket.close(1011, 'not authorized');
    const { principal, sessionId } = upgrade;
    const client: DeviceSessionClient = {
      socket,
      sessionId,
      userId: principal.userId,
      authSessionId: principal.sessionId,
      tokenId: principal.tokenId,
    };
    this.clients.add(client);
    this.heartbeat?.track(socket);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const request = parseClientRequest(data as Buffer, isBinary);
      if (!request) return this.logger.warn(`Ignored a malformed frame from a client of session ${sessionId}`);
      void this.forward(client, request);
    });
    socket.on('close', () => this.clients.remove(client));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.heartbeat?.stop();
    this.clients.closeWhere(() => true, CloseCode.goingAway, 'relay shutting down');
  }

  private async authorize(req: IncomingMessage, sessionId: string): Promise<ClientUpgrade> {
    const principal = await this.principal(req);
    if (!this.sessions.exists(sessionId)) throw new UpgradeRefusal(404, SESSION_NOT_FOUND);
    if (!this.sessions.agentFor(sessionId)) throw new UpgradeRefusal(502, ErrorMessages.agentOffline);
    return { sessionId, principal };
  }

  /** Cookie (from this relay's own pages only), then PAT with the view scope. */
  private async principal(req: IncomingMessage): Promise<Principal> {
    const cookie = readSessionCookie(req as Request);
    const fromCookie = cookie ? await this.authenticator.principalFromSessionToken(cookie) : null;
    if (fromCookie) {
      if (this.crossSite(req)) throw new UpgradeRefusal(403, ErrorMessages.crossSite);
      return fromCookie;
    }
    const raw = bearerToken(req);
    const fromPat = raw ? await this.authenticator.principalFromPat(raw) : null;
    if (!fromPat) throw new UpgradeRefusal(401, ErrorMessages.unauthorized);
    if (!fromPat.scopes.includes('view')) throw new UpgradeRefusal(403, ErrorMessages.insufficientScope);
    return fromPat;
  }

  /** Browsers always send Origin on WebSocket handshakes; a cookie socket from another site is hijacking (CSWSH). */
  private crossSite(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    const allowed = [this.config.relayUrl, this.config.tunnelUrl]
      .filter((u): u is string => !!u)
      .map((u) => new URL(u).origin.toLowerCase());
    let host: string;
    try {
      host = new URL(origin).host.toLowerCase();
    } catch {
      return true;
    }
    return host !== (req.headers.host ?? '').toLowerCase() && !allowed.includes(origin.toLowerCase());
  }

  private async forward(client: DeviceSessionClient, request: ClientRequest): Promise<void> {
    const agent = this.sessions.agentFor(client.sessionId);
    const outcome: RpcOutcome = agent
      ? await this.sessions.forward(agent, client.sessionId, request.method, request.params)
      : { kind: 'offline' };
    if (client.socket.readyState !== client.socket.OPEN) return;
    client.socket.send(toClientFrame(request.id, outcome));
  }
}

/** The agent's answer under the client's id: binary frames keep their payload, failures become `failed`. */
function toClientFrame(id: string | number, outcome: RpcOutcome): string | Buffer {
  switch (outcome.kind) {
    case 'ok':
      if (outcome.payload) {
        return encodeBinaryFrame({ type: 'response', id, ok: true, result: outcome.result }, outcome.payload);
      }
      return JSON.stringify({ type: 'response', id, ok: true, result: outcome.result });
    case 'error':
      return JSON.stringify({ type: 'response', id, ok: false, error: { code: outcome.code, message: outcome.message } });
    case 'offline':
      return JSON.stringify({ type: 'response', id, ok: false, error: { code: 'failed', message: ErrorMessages.agentOffline } });
    case 'timeout':
      return JSON.stringify({
        type: 'response',
        id,
        ok: false,
        error: { code: 'failed', message: 'The agent did not answer in time' },
      });
  }
}
