import { Injectable } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { MemberCredentialCache } from '../users/member-credential-cache';
import { TokensRevokedEvent } from './events/tokens-revoked.event';
import type { PersonalAccessTokenEntity } from './personal-access-token.entity';

/** PATs with their owner by hash: the lookup of every PAT request, held a few seconds (issue 42). */
@Injectable()
export class TokenLookups extends MemberCredentialCache<PersonalAccessTokenEntity> {
  constructor() {
    super();
  }

  protected ownerOf(token: PersonalAccessTokenEntity) {
    return { userId: token.userId, credentialId: token.id };
  }

  // Revocation is instant on every instance: the event that closes a token's sockets forgets its lookup.
  @OnEventOnEveryInstance(TokensRevokedEvent.eventName)
  onTokensRevoked(event: Pick<TokensRevokedEvent, 'tokenIds'>): void {
    this.clearCredentials(event.tokenIds);
  }
}
