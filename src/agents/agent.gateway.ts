import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { AuthenticatorService, bearerToken } from '../auth/authenticator.service';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { authorizeUpgrades, UpgradeRefusal, upgradeContext } from '../common/net/relay-ws-adapter';
import { WsHeartbeat } from '../common/net/ws-heartbeat';
import { RelayConfig } from '../config/relay-config';
import { AgentConnection, AgentIssuer } from './agent-connection';
import { AgentDirectory } from './agent-directory.service';
import { AgentRpcService } from './agent-rpc.service';
import { AgentOfflineEvent } from './events/agent-offline.event';
import { DeviceSessionEvent } from './events/device-session-event.event';
import {
  AGENT_CONNECT_PATH,
  AGENT_NAME_HEADER,
  AGENT_NAME_PATTERN,
  AgentMessage,
  CloseCode,
  MAX_MESSAGE_BYTES,
  parseAgentMessage,
} from './protocol/agent-protocol';
import { AgentResourcesService } from './resources/agent-resources.service';

interface AgentUpgrade {
  name: string;
  issuer: AgentIssuer;
}

/** setTimeout's largest delay; a later expiry re-arms the timer when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Malformed frames logged per connection before going quiet (a flood must not flood the log). */
const MALFORMED_LOG_LIMIT = 5;
/** How long shutdown waits for agents to acknowledge the 1001 close. */
const SHUTDOWN_GRACE_MS = 1000;

/**
 * Transport for agents (agent-protocol.md §1–2): authenticates the upgrade, registers the socket
 * under its name (replacing an older one with 4000), keeps it alive with pings, closes it when its
 * PAT expires, and hands frames to the directory, the RPC service and the resource history.
 * Revocation closes come from AgentRevocationListener reacting to events.
 */
@WebSocketGateway({ path: AGENT_CONNECT_PATH, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false })
export class AgentGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown {
  private readonly logger = new Logger('Agents');
  private readonly expiryTimers = new Map<AgentConnection, NodeJS.Timeout>();
  private heartbeat: WsHeartbeat | null = null;

  constructor(
    private readonly authenticator: AuthenticatorService,
    private readonly directory: AgentDirectory,
    private readonly rpc: AgentRpcService,
    private readonly resources: AgentResourcesService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly config: RelayConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    authorizeUpgrades(server, (req) => this.authorize(req));
    this.heartbeat = new WsHeartbeat(this.config.agents.pingIntervalMs, () => this.closeExpired());
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const upgrade = upgradeContext<AgentUpgrade>(req);
    if (!upgrade) return socket.close(1011, 'not authorized');
    const connection = new AgentConnection(upgrade.name, socket, upgrade.issuer);
    const previous = this.directory.register(connection);
    previous?.close(CloseCode.replaced, 'replaced');
    this.heartbeat?.track(socket);
    this.armExpiry(connection);
    let malformed = 0;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const message = parseAgentMessage(data as Buffer, isBinary);
      if (message) return this.receive(connection, message);
      if (++malformed <= MALFORMED_LOG_LIMIT) {
        this.logger.warn(`Ignored a malformed ${isBinary ? 'binary' : 'text'} frame from agent ${connection.name}`);
      }
    });
    socket.on('close', (code: number) => this.closed(connection, code));
    this.logger.log(`Agent ${connection.name} connected${previous ? ' (replacing its previous connection)' : ''}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.heartbeat?.stop();
    const open = this.directory.all();
    await Promise.all(
      open.map(
        (connection) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              connection.socket.terminate();
              done();
            }, SHUTDOWN_GRACE_MS);
            connection.socket.once('close', () => {
              clearTimeout(timer);
              done();
            });
            connection.close(CloseCode.goingAway, 'relay shutting down');
          }),
      ),
    );
    await this.resources.flush();
  }

  /** agent-protocol §1: 401 without a valid PAT, 403 without the agent scope or an Admin issuer, 400 for the name. */
  private async authorize(req: IncomingMessage): Promise<AgentUpgrade> {
    const raw = bearerToken(req);
    const principal = raw ? await this.authenticator.principalFromPat(raw) : null;
    if (!principal || principal.tokenId === null) throw new UpgradeRefusal(401, ErrorMessages.unauthorized);
    if (!principal.scopes.includes('agent')) throw new UpgradeRefusal(403, ErrorMessages.insufficientScope);
    if (principal.role !== 'Admin') throw new UpgradeRefusal(403, 'The issuer of this agent token is not an Admin');
    const name = req.headers[AGENT_NAME_HEADER];
    if (typeof name !== 'string' || !AGENT_NAME_PATTERN.test(name)) {
      throw new UpgradeRefusal(400, 'X-Svc-Agent-Name must be 1-64 characters of A-Z, a-z, 0-9, ".", "_" or "-"');
    }
    return {
      name,
      issuer: { userId: principal.userId, tokenId: principal.tokenId, tokenExpiresAt: principal.tokenExpiresAt ?? null },
    };
  }

  private receive(connection: AgentConnection, message: AgentMessage): void {
    switch (message.type) {
      case 'hello':
        connection.hello = message.agent;
        this.logger.log(
          `Agent ${connection.name} says hello (version ${message.agent.version ?? '?'}, ${message.agent.os ?? '?'})`,
        );
        return;
      case 'devices':
        if (this.directory.connection(connection.name) === connection) {
          this.directory.setDevices(connection.name, message.devices);
        }
        return;
      case 'resources':
        this.resources.record(connection.name, message.cpuPercent, message.memPercent);
        return;
      case 'response':
        this.rpc.settle(connection, message);
        return;
      case 'event':
        if (this.directory.locate(message.sessionId)?.connection === connection) {
          this.events.emit(
            DeviceSessionEvent.eventName,
            new DeviceSessionEvent(message.sessionId, message.event, message.data),
          );
        }
        return;
      default:
        return;
    }
  }

  private closed(connection: AgentConnection, code: number): void {
    clearTimeout(this.expiryTimers.get(connection));
    this.expiryTimers.delete(connection);
    this.rpc.connectionClosed(connection);
    if (!this.directory.unregister(connection)) return;
    this.logger.log(`Agent ${connection.name} disconnected (${code})`);
    this.events.emit(
      AgentOfflineEvent.eventName,
      new AgentOfflineEvent(connection.name, this.directory.sessionIdsOf(connection.name)),
    );
  }

  /** A timer at the PAT's expires_at (the heartbeat also checks, so a moved test clock is noticed). */
  private armExpiry(connection: AgentConnection): void {
    const expiresAt = connection.issuer.tokenExpiresAt;
    if (!expiresAt) return;
    const delay = Math.min(Math.max(expiresAt.getTime() - this.clock.nowMs(), 0), MAX_TIMER_MS);
    const timer = setTimeout(() => {
      if (!this.closeIfExpired(connection)) this.armExpiry(connection);
    }, delay);
    timer.unref();
    this.expiryTimers.set(connection, timer);
  }

  private closeExpired(): void {
    for (const connection of this.directory.all()) this.closeIfExpired(connection);
  }

  private closeIfExpired(connection: AgentConnection): boolean {
    const expiresAt = connection.issuer.tokenExpiresAt;
    if (!expiresAt || expiresAt.getTime() > this.clock.nowMs()) return false;
    this.logger.log(`Agent ${connection.name} disconnected: its token expired`);
    connection.close(CloseCode.revoked, 'token expired');
    return true;
  }
}
