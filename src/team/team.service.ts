import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { SessionsService } from '../auth/sessions.service';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import { SerialQueue } from '../common/serial-queue';
import { TokensService } from '../tokens/tokens.service';
import { StoredImagesService } from '../images/stored-images.service';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { Member, toMember } from './team.mapper';

export const TeamMessages = {
  memberNotFound: 'Member not found',
  cannotDeleteSelf: 'You cannot delete your own account',
  lastAdmin: 'The last Admin cannot be demoted or deleted; make another member Admin first',
} as const;

/**
 * Members as the Admin manages them. Beyond the spec, the team cannot lock itself out: the last
 * Admin can be neither demoted nor deleted (409). Role changes and deletions run one at a time so
 * two Admins demoting each other cannot both succeed.
 */
@Injectable()
export class TeamService {
  private readonly changes = new SerialQueue();

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly images: StoredImagesService,
    private readonly events: EventEmitter2,
  ) {}

  async list(): Promise<Member[]> {
    return (await this.users.list()).map(toMember);
  }

  changeRole(actor: Principal, id: number, role: Role): Promise<void> {
    return this.changes.run(async () => {
      const member = await this.existing(id);
      if (member.role === role) return;
      await this.assertNotLastAdmin(member);
      await this.users.update(id, { role });
      this.events.emit(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(id, member.role, role));
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'member.role_changed', `member:${id}`, { email: member.email, from: member.role, to: role }));
    });
  }

  /** Deletes a member: their sessions and PATs end first (events close their sockets); comments keep their name. */
  delete(actor: Principal, id: number): Promise<void> {
    return this.changes.run(async () => {
      if (actor.userId === id) throw badRequest(TeamMessages.cannotDeleteSelf);
      const member = await this.existing(id);
      await this.assertNotLastAdmin(member);
      await this.sessions.endAllFor(id);
      await this.tokens.revokeAllFor(id, 'member_deleted');
      await this.users.delete(id);
      await this.images.remove(member.avatarPath);
      this.events.emit(MemberDeletedEvent.eventName, new MemberDeletedEvent(id));
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'member.deleted', `member:${id}`, { email: member.email, role: member.role }));
    });
  }

  private async existing(id: number): Promise<UserEntity> {
    const member = await this.users.findById(id);
    if (!member) throw notFound(TeamMessages.memberNotFound);
    return member;
  }

  /** Active Admins only: a deactivated one (SCIM) cannot sign in to undo the change (issue 36). */
  private async assertNotLastAdmin(member: UserEntity): Promise<void> {
    if (await this.users.isLastActiveAdmin(member)) throw conflict(TeamMessages.lastAdmin);
  }
}
