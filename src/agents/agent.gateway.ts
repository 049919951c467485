import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { Auth } from '../common/auth/auth.decorator';
import { actorOf, AuditActor, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { badRequest } from '../common/errors/http-error';
import { authorizeUpgrades, upgradeContext } from '../common/net/upgrade-routing-ws-adapter';
import { WsHeartbeat } from '../common/net/ws-heartbeat';
import { RelayConfig } from '../config/relay-config';
import { AgentConnection, AgentIssuer } from './agent-connection';
import { AgentDirectory, RefusedSession } from './agent-directory.service';
import { AgentLocator } from './agent-locator.service';
import { AgentRpcService } from './agent-rpc.service';
import { AgentVideoFeed } from './agent-video-feed';
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
  /** Who the audit log names for this connection: the token's member, `via: agent`. */
  actor: AuditActor;
}

/** Malformed frames logged per connection before going quiet (a flood must not flood the log). */
const MALFORMED_LOG_LIMIT = 5;
/** Device lists with refused sessions logged per connection (an agent may resend its list at any rate). */
const REFUSAL_LOG_LIMIT = 5;

/**
 * Transport for agents (agent-protocol.md §1–2): admits the upgrade (credentials by UpgradeRoutingWsAdapter
 * with the @Auth below, then the agent name), registers the socket under its name (replacing an
 * older one with 4000), keeps it alive with pings, and hands frames to the directory, the RPC
 * service and the resource history. Revocation closes come from AgentRevocationListener reacting
 * to events; expiry and the re-check after registration from the adapter.
 */
@Auth({ cookie: false, pat: 'agent', roles: ['Admin'], roleRefusal: 'The issuer of this agent token is not an Admin' })
@WebSocketGateway({ path: AGENT_CONNECT_PATH, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false })
export class AgentGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown {
  private readonly logger = new Logger('Agents');
  private heartbeat: WsHeartbeat | null = null;

  constructor(
    private readonly directory: AgentDirectory,
    private readonly locator: AgentLocator,
    private readonly rpc: AgentRpcService,
    private readonly resources: AgentResourcesService,
    private readonly events: EventEmitter2,
    private readonly config: RelayConfig,
    private readonly video: AgentVideoFeed,
  ) {}

  afterInit(server: WebSocketServer): void {
    authorizeUpgrades(server, this, (req, _params, principal) => this.admit(req, principal));
    this.heartbeat = new WsHeartbeat(this.config.agents.pingIntervalMs);
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const upgrade = upgradeContext<AgentUpgrade>(req);
    if (!upgrade) return socket.close(1011, 'not authorized');
    const connection = new AgentConnection(upgrade.name, socket, upgrade.issuer);
    const previous = this.directory.register(connection);
    previous?.close(CloseCode.replaced, 'replaced');
    this.locator.connected(connection.name);
    this.heartbeat?.track(socket);
    // Binary messages arrive as their fragments, not joined; with this binaryType the engine room's ws
    // piece (src/platform/ws) reads them as slices of the socket's reads or into pooled payloads.
    socket.binaryType = 'fragments';
    let malformed = 0;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const message = parseAgentMessage(data as Buffer | Buffer[], isBinary);
      if (message) return this.receive(connection, message);
      if (++malformed <= MALFORMED_LOG_LIMIT) {
        this.logger.warn(`Ignored a malformed ${isBinary ? 'binary' : 'text'} frame from agent ${connection.name}`);
      }
    });
    socket.on('close', (code: number) => {
      this.closed(connection, code);
      this.events.emit(AUDIT_EVENT, auditEvent(upgrade.actor, 'agent.disconnected', `agent:${connection.name}`, { code }));
    });
    this.logger.log(`Agent ${connection.name} connected${previous ? ' (replacing its previous connection)' : ''}`);
    this.events.emit(AUDIT_EVENT, auditEvent(upgrade.actor, 'agent.connected', `agent:${connection.name}`, { replaced: !!previous }));
  }

  /** The sockets themselves are closed with 1001 by the adapter (every socket, registered or not). */
  async beforeApplicationShutdown(): Promise<void> {
    this.heartbeat?.stop();
    await this.resources.flush();
  }

  /** agent-protocol §1, after the credential (401/403): 400 for a missing or malformed name. */
  private admit(req: IncomingMessage, principal: Principal): AgentUpgrade {
    const name = req.headers[AGENT_NAME_HEADER];
    if (typeof name !== 'string' || !AGENT_NAME_PATTERN.test(name)) {
      throw badRequest('X-Svc-Agent-Name must be 1-64 characters of A-Z, a-z, 0-9, ".", "_" or "-"');
    }
    return {
      name,
      issuer: { userId: principal.userId, tokenId: principal.tokenId! },
      actor: { ...actorOf(principal), via: 'agent' },
    };
  }

  private receive(connection: AgentConnection, message: AgentMessage): void {
    switch (message.type) {
      case 'hello':
        connection.hello = message.agent;
        if (this.directory.connection(connection.name) === connection) this.directory.setHello(connection.name, message.agent);
        this.logger.log(
          `Agent ${connection.name} says hello (version ${message.agent.version ?? '?'}, ${message.agent.os ?? '?'})`,
        );
        return;
      case 'devices':
        if (this.directory.connection(connection.name) === connection) {
          void this.locator.listed(connection.name, message.devices).then((refused) => this.warnRefused(connection, refused));
        }
        return;
      case 'resources':
        this.resources.record(connection.name, message.cpuPercent, message.memPercent);
        return;
      case 'response':
        this.rpc.settle(connection, message);
        return;
      case 'video':
        // Only the agent that owns the session may stream it.
        if (this.directory.locate(message.sessionId)?.connection === connection) this.video.publish(message);
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

  /** A second agent listing an owned sessionId is an impostor or a misconfigured daemon: the operator must hear of it. */
  private warnRefused(connection: AgentConnection, refused: RefusedSession[]): void {
    if (!refused.length || ++connection.refusalsLogged > REFUSAL_LOG_LIMIT) return;
    const taken = refused.slice(0, 5).map((r) => `${r.sessionId.slice(0, 80)} (owned by agent ${r.owner})`);
    const more = refused.length > taken.length ? ` and ${refused.length - taken.length} more` : '';
    this.logger.warn(
      `Agent ${connection.name} listed sessions another connected agent owns; they stay with their owner: ${taken.join(', ')}${more}`,
    );
  }

  private closed(connection: AgentConnection, code: number): void {
    this.rpc.connectionClosed(connection);
    if (!this.directory.unregister(connection)) return;
    this.locator.disconnected(connection.name);
    this.logger.log(`Agent ${connection.name} disconnected (${code})`);
    this.events.emit(
      AgentOfflineEvent.eventName,
      new AgentOfflineEvent(connection.name, this.directory.sessionIdsOf(connection.name)),
    );
  }
}
