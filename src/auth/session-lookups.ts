import { Injectable } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { MemberCredentialCache } from '../users/member-credential-cache';
import { SessionsRevokedEvent } from './events/sessions-revoked.event';
import type { SessionEntity } from './session.entity';

/** Sessions with their member by hash: the lookup of every cookie request, held a few seconds (issue 42). */
@Injectable()
export class SessionLookups extends MemberCredentialCache<SessionEntity> {
  constructor() {
    super();
  }

  protected ownerOf(session: SessionEntity) {
    return { userId: session.userId, credentialId: session.id };
  }

  // Sign-out is instant on every instance: the event that closes a session's sockets forgets its lookup.
  @OnEventOnEveryInstance(SessionsRevokedEvent.eventName)
  onSessionsRevoked(event: Pick<SessionsRevokedEvent, 'sessionIds'>): void {
    this.clearCredentials(event.sessionIds);
  }
}
