import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { MAX_UNSENT_BYTES } from '../agents/agent-connection';
import { RpcOutcome } from '../agents/agent-rpc.service';
import {
  ClientRequest,
  CloseCode,
  DEVICE_SESSION_CONNECT_PATH,
  sendBinaryFrame,
  MAX_MESSAGE_BYTES,
  parseClientRequest,
} from '../agents/protocol/agent-protocol';
import { actorOf } from '../audit/audit-actor';
import { Auth } from '../common/auth/auth.decorator';
import type { Principal } from '../common/auth/principal';
import { ErrorMessages } from '../common/errors/error-messages';
import { conflict, notFound, HttpError } from '../common/errors/http-error';
import { DeviceReservations } from './device-reservations.service';
import { authorizeUpgrades, upgradeContext } from '../common/net/upgrade-routing-ws-adapter';
import { WsHeartbeat } from '../common/net/ws-heartbeat';
import { RelayConfig } from '../config/relay-config';
import { DeviceSessionClient, DeviceSessionClients, deviceSessionClient } from './device-session-clients.service';
import { AGENT_BUSY, DeviceSessionsService, isOnline, SESSION_NOT_FOUND } from './device-sessions.service';

interface ClientUpgrade {
  sessionId: string;
  principal: Principal;
}

/** Client frames are requests: far below the agents' 32 MiB. */
const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

/**
 * Automation clients' sockets (agent-protocol §3): authenticated at the upgrade by UpgradeRoutingWsAdapter
 * like the REST sessions routes (cookie or PAT(view), the one Origin rule for cookies), admitted
 * when the session is known and its agent connected, then each request is forwarded to the owning agent under a fresh id
 * and answered under the client's own id. Fan-out of events and the closes live in the listener.
 */
@Auth({ cookie: true, pat: 'view' })
@WebSocketGateway({ path: DEVICE_SESSION_CONNECT_PATH, maxPayload: MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false })
export class DeviceSessionGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeviceSessions');
  private heartbeat: WsHeartbeat | null = null;

  constructor(
    private readonly sessions: DeviceSessionsService,
    private readonly clients: DeviceSessionClients,
    private readonly config: RelayConfig,
    private readonly reservations: DeviceReservations,
  ) {}

  afterInit(server: WebSocketServer): void {
    authorizeUpgrades(server, this, (_req, params, principal) => this.admit(params.sessionId, principal));
    this.heartbeat = new WsHeartbeat(this.config.agents.pingIntervalMs);
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const upgrade = upgradeContext<ClientUpgrade>(req);
    if (!upgrade) return socket.close(1011, 'not authorized');
    const { principal, sessionId } = upgrade;
    const client = deviceSessionClient(socket, sessionId, principal);
    this.clients.add(client);
    this.heartbeat?.track(socket);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const request = parseClientRequest(data as Buffer, isBinary);
      if (!request) return this.logger.warn(`Ignored a malformed frame from a client of session ${sessionId}`);
      this.receive(client, request);
    });
    socket.on('close', () => {
      this.clients.remove(client);
      void this.reservations.manualClosed(sessionId);
    });
  }

  /** The sockets themselves are closed with 1001 by the adapter (every socket, registered or not). */
  beforeApplicationShutdown(): void {
    this.heartbeat?.stop();
  }

  /** After the credential: 404 for a session no agent listed, 502 when its agent is not connected. */
  private async admit(sessionId: string, principal: Principal): Promise<ClientUpgrade> {
    const place = await this.sessions.locate(sessionId);
    if (!place) throw notFound(SESSION_NOT_FOUND);
    if (!isOnline(place)) throw new HttpError(502, ErrorMessages.agentOffline);
    const holder = await this.reservations.claimManual(sessionId);
    if (holder) throw conflict(`Device is in use by an automated session of ${holder.member}; watch it live, or wait until it ends`);
    return { sessionId, principal };
  }

  /**
   * Limits (docs/robustness.md): a client not reading its answers (over MAX_UNSENT_BYTES unsent)
   * gets nothing more, not even a refusal; one with `deviceSessionInFlight` requests waiting is
   * answered `busy` at once and nothing is forwarded.
   */
  private receive(client: DeviceSessionClient, request: ClientRequest): void {
    if (client.socket.bufferedAmount > MAX_UNSENT_BYTES) return;
    const limit = this.config.limits.deviceSessionInFlight;
    if (client.inFlight >= limit) {
      client.socket.send(
        JSON.stringify({
          type: 'response',
          id: request.id,
          ok: false,
          error: { code: 'busy', message: `Too many requests in flight (at most ${limit}); wait for answers` },
        }),
      );
      return;
    }
    client.inFlight++;
    void this.forward(client, request).finally(() => client.inFlight--);
  }

  private async forward(client: DeviceSessionClient, request: ClientRequest): Promise<void> {
    const outcome: RpcOutcome = await this.sessions.forward(client.sessionId, request.method, request.params, client.actor);
    if (client.socket.readyState !== client.socket.OPEN) return;
    if (outcome.kind === 'ok' && outcome.payload) {
      // Binary frames keep their payload, sent as the fragments it arrived in (not copied into one).
      sendBinaryFrame(client.socket, { type: 'response', id: request.id, ok: true, result: outcome.result }, outcome.payload);
      return;
    }
    client.socket.send(toClientFrame(request.id, outcome));
  }
}

/** The agent's answer under the client's id (JSON), failures become `failed`. */
function toClientFrame(id: string | number, outcome: RpcOutcome): string {
  switch (outcome.kind) {
    case 'ok':
      return JSON.stringify({ type: 'response', id, ok: true, result: outcome.result });
    case 'error':
      return JSON.stringify({ type: 'response', id, ok: false, error: { code: outcome.code, message: outcome.message } });
    case 'offline':
      return JSON.stringify({ type: 'response', id, ok: false, error: { code: 'failed', message: ErrorMessages.agentOffline } });
    case 'busy':
      return JSON.stringify({ type: 'response', id, ok: false, error: { code: 'busy', message: AGENT_BUSY } });
    case 'timeout':
      return JSON.stringify({
        type: 'response',
        id,
        ok: false,
        error: { code: 'failed', message: 'The agent did not answer in time' },
      });
  }
}
