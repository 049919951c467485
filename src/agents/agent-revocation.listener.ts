import { Injectable, Logger } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { TokensRevokedEvent } from '../tokens/events/tokens-revoked.event';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import { AgentConnection } from './agent-connection';
import { AgentDirectory } from './agent-directory.service';
import { CloseCode } from './protocol/agent-protocol';

/**
 * Closes agent sockets the moment their credentials stop being good enough (agent-protocol §1):
 * 4001 when the PAT is revoked (directly or by a password reset), 4003 when the issuer is no longer
 * an Admin or no longer exists. Driven by events, so the tokens and team code never touch sockets;
 * with Redis, events from every instance, so the instance holding the socket closes it.
 */
@Injectable()
export class AgentRevocationListener {
  private readonly logger = new Logger('Agents');

  constructor(private readonly directory: AgentDirectory) {}

  @OnEventOnEveryInstance(TokensRevokedEvent.eventName)
  onTokensRevoked(event: TokensRevokedEvent): void {
    const code = event.reason === 'member_deleted' ? CloseCode.forbidden : CloseCode.revoked;
    const revoked = new Set(event.tokenIds);
    this.closeWhere((c) => revoked.has(c.issuer.tokenId), code, `token ${event.reason.replace('_', ' ')}`);
  }

  @OnEventOnEveryInstance(MemberRoleChangedEvent.eventName)
  onRoleChanged(event: MemberRoleChangedEvent): void {
    if (event.role === 'Admin') return;
    this.closeWhere((c) => c.issuer.userId === event.userId, CloseCode.forbidden, 'issuer is no longer an Admin');
  }

  @OnEventOnEveryInstance(MemberDeletedEvent.eventName)
  onMemberDeleted(event: MemberDeletedEvent): void {
    this.closeWhere((c) => c.issuer.userId === event.userId, CloseCode.forbidden, 'issuer was removed');
  }

  private closeWhere(match: (connection: AgentConnection) => boolean, code: number, reason: string): void {
    try {
      for (const connection of this.directory.all().filter(match)) {
        this.logger.log(`Agent ${connection.name} disconnected (${code}): ${reason}`);
        connection.close(code, reason);
      }
    } catch (err) {
      this.logger.error(`Closing agents failed: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
