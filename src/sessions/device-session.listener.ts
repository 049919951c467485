import { Injectable, Logger } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { AgentOfflineEvent } from '../agents/events/agent-offline.event';
import { DeviceSessionEvent } from '../agents/events/device-session-event.event';
import { CloseCode, MAX_MESSAGE_BYTES } from '../agents/protocol/agent-protocol';
import { SessionsRevokedEvent } from '../auth/events/sessions-revoked.event';
import { TokensRevokedEvent } from '../tokens/events/tokens-revoked.event';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { DeviceSessionClient, DeviceSessionClients } from './device-session-clients.service';

/**
 * What happens to automation clients when something changes elsewhere: agent events fan out to every
 * client of the session; an agent going away closes its sessions' clients (4502); ended browser
 * sessions, revoked PATs and removed members close the sockets they opened. With Redis these events
 * come from every instance (docs/scaling.md): the agent may be on one, its clients on others.
 */
@Injectable()
export class DeviceSessionListener {
  private readonly logger = new Logger('DeviceSessions');

  constructor(private readonly clients: DeviceSessionClients) {}

  // Carries what the agent sent, up to its message limit (agent-protocol §1).
  @OnEventOnEveryInstance(DeviceSessionEvent.eventName, { maxPayloadBytes: MAX_MESSAGE_BYTES })
  onDeviceEvent(event: DeviceSessionEvent): void {
    this.guarded(() => {
      const frame = JSON.stringify({ type: 'event', sessionId: event.sessionId, event: event.event, data: event.data });
      for (const client of this.clients.of(event.sessionId)) {
        if (!client.video && client.socket.readyState === client.socket.OPEN) client.socket.send(frame);
      }
    });
  }

  @OnEventOnEveryInstance(AgentOfflineEvent.eventName)
  onAgentOffline(event: AgentOfflineEvent): void {
    const sessions = new Set(event.sessionIds);
    this.closeWhere((c) => sessions.has(c.sessionId), CloseCode.agentGone, 'agent offline');
  }

  @OnEventOnEveryInstance(SessionsRevokedEvent.eventName)
  onSessionsRevoked(event: SessionsRevokedEvent): void {
    const ended = new Set(event.sessionIds);
    this.closeWhere((c) => c.authSessionId !== null && ended.has(c.authSessionId), CloseCode.revoked, 'signed out');
  }

  @OnEventOnEveryInstance(TokensRevokedEvent.eventName)
  onTokensRevoked(event: TokensRevokedEvent): void {
    const revoked = new Set(event.tokenIds);
    this.closeWhere((c) => c.tokenId !== null && revoked.has(c.tokenId), CloseCode.revoked, 'token revoked');
  }

  @OnEventOnEveryInstance(MemberDeletedEvent.eventName)
  onMemberDeleted(event: MemberDeletedEvent): void {
    this.closeWhere((c) => c.userId === event.userId, CloseCode.forbidden, 'member removed');
  }

  private closeWhere(match: (client: DeviceSessionClient) => boolean, code: number, reason: string): void {
    this.guarded(() => this.clients.closeWhere(match, code, reason));
  }

  private guarded(action: () => void): void {
    try {
      action();
    } catch (err) {
      this.logger.error(`Device-session listener failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
