import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { SessionsService } from '../auth/sessions.service';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import { TokensService } from '../tokens/tokens.service';
import { StoredImagesService } from '../images/stored-images.service';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import { GUARDRAIL_MESSAGES, MemberGuardrails, type MemberChange } from '../users/member-guardrails.service';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { Member, toMember } from './team.mapper';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

export const TeamMessages = {
  memberNotFound: 'Member not found',
  cannotDeleteSelf: 'You cannot delete your own account',
  lastAdmin: 'The last Admin cannot be demoted or deleted; make another member Admin first',
} as const;

/**
 * Members as the Admin manages them. Beyond the spec, the team cannot lock itself out: the last
 * active Admin, and under `sso.only` the last active break-glass Admin, can be neither demoted nor
 * deleted (409). Role changes and deletions run inside MemberGuardrails.serialised, one at a time
 * with every other path's member changes, so two Admins demoting each other cannot both succeed.
 */
@Injectable()
export class TeamService {
  constructor(
    private readonly users: UsersService,
    private readonly guardrails: MemberGuardrails,
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly images: StoredImagesService,
    private readonly events: EventEmitter2,
    private readonly cluster: ClusterEventsBridge,
  ) {}

  async list(): Promise<Member[]> {
    return (await this.users.list()).map(toMember);
  }

  changeRole(actor: Principal, id: number, role: Role): Promise<void> {
    return this.guardrails.serialised(async () => {
      const member = await this.existing(id);
      if (member.role === role) return;
      await this.assertAllowed({ member, after: { role } });
      await this.users.update(id, { role });
      await this.cluster.announce(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(id, member.role, role));
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'member.role_changed', `member:${id}`, { email: member.email, from: member.role, to: role }));
    });
  }

  delete(actor: Principal, id: number): Promise<void> {
    return this.guardrails.serialised(async () => {
      if (actor.userId === id) throw badRequest(TeamMessages.cannotDeleteSelf);
      const member = await this.existing(id);
      await this.assertAllowed({ member, after: null });
      await this.remove(actor, member);
    });
  }

  /**
   * Deletes a member: their sessions and PATs end first (events close their sockets); comments keep
   * their name. The caller runs it inside MemberGuardrails.serialised, having checked the guardrails
   * (the Team page above, SCIM DELETE with its own refusals).
   */
  async remove(actor: Principal, member: UserEntity): Promise<void> {
    const id = member.id;
    await this.sessions.endAllFor(id);
    await this.tokens.revokeAllFor(id, 'member_deleted');
    await this.users.delete(id);
    await this.images.remove(member.avatarPath);
    await this.cluster.announce(MemberDeletedEvent.eventName, new MemberDeletedEvent(id));
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'member.deleted', `member:${id}`, { email: member.email, role: member.role }));
  }

  private async existing(id: number): Promise<UserEntity> {
    const member = await this.users.findById(id);
    if (!member) throw notFound(TeamMessages.memberNotFound);
    return member;
  }

  private async assertAllowed(change: MemberChange): Promise<void> {
    const breach = await this.guardrails.breach([change]);
    if (breach) throw conflict(breach === 'last_admin' ? TeamMessages.lastAdmin : GUARDRAIL_MESSAGES.lastBreakGlass);
  }
}
