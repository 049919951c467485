import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import { RelayConfig } from '../config/relay-config';
import { roleForGroups } from '../identity/role-mapping';
import { SsoMembersService } from '../identity/sso-members.service';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ScimGroupsRepository } from './scim-groups.repository';
import { ScimMembersService } from './scim-members.service';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

/** One group as it will be once a change is stored: `displayName` null when it is being deleted. */
export interface GroupAfterChange {
  id: number | null;
  displayName: string | null;
  memberIds: ReadonlySet<number>;
}

export interface RoleChange {
  user: UserEntity;
  role: Role;
}

/**
 * Roles from SCIM group membership (the sso role mapping), planned before a group change is stored
 * so a change that would leave no active Admin is refused whole (409 `mutability`) rather than
 * stored with its roles skipped. Only members SCIM manages (ScimMembersService.manages) follow their
 * groups: a break-glass member's or a local member's role is the Admins' to set.
 */
@Injectable()
export class ScimGroupRolesService {
  constructor(
    private readonly groups: ScimGroupsRepository,
    private readonly users: UsersService,
    private readonly members: ScimMembersService,
    private readonly ssoMembers: SsoMembersService,
    private readonly config: RelayConfig,
    private readonly cluster: ClusterEventsBridge,
  ) {}

  /** The role changes of `userIds` once `group` is stored; throws 409 if they would break a guardrail (no active Admin left). */
  async plan(userIds: Iterable<number>, group: GroupAfterChange): Promise<RoleChange[]> {
    const mapping = this.config.sso.oidc ?? this.config.sso.ldap;
    if (!mapping) return [];
    const users = await this.users.findManyByIds([...new Set(userIds)]);
    const provisioned = await this.ssoMembers.provisionedThroughScim(users.map((u) => u.id));
    const managed = users.filter((u) => this.members.manages(u, provisioned.has(u.id)));
    const groupNames = await this.otherGroupNames(managed.map((u) => u.id), group.id);
    const changes: RoleChange[] = [];
    for (const user of managed) {
      const names = groupNames.get(user.id) ?? [];
      if (group.displayName !== null && group.memberIds.has(user.id)) names.push(group.displayName);
      const role = roleForGroups(names, mapping) ?? 'Viewer';
      if (role !== user.role) changes.push({ user, role });
    }
    await this.members.assertAllowed(changes.map(({ user, role }) => ({ member: user, after: { role } })));
    return changes;
  }

  async apply(actor: Principal, changes: RoleChange[]): Promise<void> {
    for (const role of new Set(changes.map((c) => c.role))) {
      await this.users.setRole(changes.filter((c) => c.role === role).map((c) => c.user.id), role);
    }
    for (const { user, role } of changes) {
      this.members.audit('member.role_changed', actor, user.id, { from: user.role, to: role, source: 'scim_group' });
    }
    await Promise.all(changes.map(({ user, role }) => this.cluster.announce(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(user.id, user.role, role))));
  }

  /** The names of the stored groups each member is in, but `except` (the group being changed). */
  private async otherGroupNames(userIds: number[], except: number | null): Promise<Map<number, string[]>> {
    const names = new Map<number, string[]>();
    for (const row of await this.groups.groupsOfMembers(userIds)) {
      if (except !== null && row.groupId === except) continue;
      names.set(row.userId, [...(names.get(row.userId) ?? []), row.name]);
    }
    return names;
  }
}
