import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { actorOf, type AuditActor } from '../audit/audit-actor';
import type { Principal } from '../common/auth/principal';
import { RelayMetrics } from '../metrics/relay-metrics';

/** An automation client's open socket on one device session, with the credentials it opened with. */
export interface DeviceSessionClient {
  socket: WebSocket;
  sessionId: string;
  userId: number;
  /** Browser session (cookie) that opened it, else null. */
  authSessionId: number | null;
  /** PAT that opened it, else null. */
  tokenId: number | null;
  /** Its requests still waiting on the agent (capped by limits.deviceSessionInFlight). */
  inFlight: number;
  /** Who its device actions are recorded as (docs/audit.md). */
  actor: AuditActor;
  /** A live video viewer (GET /sessions/:id/stream): closed like the others, but sent no events. */
  video?: true;
}

/** A client socket just admitted on `sessionId` with `principal`'s credential. */
export function deviceSessionClient(socket: WebSocket, sessionId: string, principal: Principal, video = false): DeviceSessionClient {
  return {
    socket,
    sessionId,
    userId: principal.userId,
    authSessionId: principal.sessionId,
    tokenId: principal.tokenId,
    inFlight: 0,
    actor: actorOf(principal),
    ...(video ? { video: true as const } : {}),
  };
}

/** The open client sockets, by device session. */
@Injectable()
export class DeviceSessionClients implements OnModuleInit {
  private readonly logger = new Logger('DeviceSessions');
  private readonly bySession = new Map<string, Set<DeviceSessionClient>>();

  constructor(private readonly metrics: RelayMetrics) {}

  onModuleInit(): void {
    this.metrics.gauge('svc_device_session_clients', 'Automation clients with an open device-session socket', [], () =>
      [...this.bySession.values()].reduce((sum, set) => sum + set.size, 0),
    );
  }

  add(client: DeviceSessionClient): void {
    const set = this.bySession.get(client.sessionId) ?? new Set();
    set.add(client);
    this.bySession.set(client.sessionId, set);
  }

  remove(client: DeviceSessionClient): void {
    const set = this.bySession.get(client.sessionId);
    set?.delete(client);
    if (set && !set.size) this.bySession.delete(client.sessionId);
  }

  of(sessionId: string): DeviceSessionClient[] {
    return [...(this.bySession.get(sessionId) ?? [])];
  }

  closeWhere(match: (client: DeviceSessionClient) => boolean, code: number, reason: string): void {
    for (const set of this.bySession.values()) {
      for (const client of set) {
        if (!match(client) || client.socket.readyState !== client.socket.OPEN) continue;
        this.logger.log(`Closing a client of session ${client.sessionId} (${code}): ${reason}`);
        client.socket.close(code, reason);
      }
    }
  }
}
