import { CredentialCache } from '../common/auth/credential-cache';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { MemberChangedEvent } from './events/member-changed.event';
import { MemberDeletedEvent } from './events/member-deleted.event';
import { MemberRoleChangedEvent } from './events/member-role-changed.event';

/**
 * A credential cache that forgets a member's credentials whenever their row changes (role,
 * deactivation, name, deletion), on every instance: what a credential resolves to includes the member.
 */
export abstract class MemberCredentialCache<T> extends CredentialCache<T> {
  @OnEventOnEveryInstance(MemberChangedEvent.eventName)
  onMembersChanged(event: Pick<MemberChangedEvent, 'userIds'>): void {
    this.clearMembers(event.userIds);
  }

  @OnEventOnEveryInstance(MemberRoleChangedEvent.eventName)
  onRoleChanged(event: Pick<MemberRoleChangedEvent, 'userId'>): void {
    this.clearMembers([event.userId]);
  }

  @OnEventOnEveryInstance(MemberDeletedEvent.eventName)
  onMemberDeleted(event: Pick<MemberDeletedEvent, 'userId'>): void {
    this.clearMembers([event.userId]);
  }
}
