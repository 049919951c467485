import { HttpStatus, Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { TransactionRunner } from '../database/transaction-runner';
import { MemberGuardrails } from '../users/member-guardrails.service';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { bounded, SCIM_LIMITS, scimAttribute, scimString, type PatchOperation } from './scim-bodies';
import { ScimError } from './scim-error';
import { ScimGroupEntity } from './scim-group.entity';
import { ScimGroupRolesService } from './scim-group-roles.service';
import { ScimGroupsRepository } from './scim-groups.repository';
import { ScimMembersService } from './scim-members.service';

/** SCIM Groups: stored with their members; a membership change re-derives the roles of those it moves. */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly groups: ScimGroupsRepository,
    private readonly users: UsersService,
    private readonly members: ScimMembersService,
    private readonly roles: ScimGroupRolesService,
    private readonly guardrails: MemberGuardrails,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Every group with its members (in id order). */
  async list(): Promise<ScimGroupEntity[]> {
    return this.withMembers(await this.groups.list(), await this.groups.memberIds());
  }

  async find(id: string): Promise<ScimGroupEntity> {
    const group = /^\d{1,9}$/.test(id) ? await this.groups.findById(Number(id)) : null;
    if (!group) throw new ScimError(HttpStatus.NOT_FOUND, `Group ${id} not found`);
    const [found] = await this.withMembers([group], await this.groups.memberIds(group.id));
    return found;
  }

  /** The groups with their members, read from the users module (the members table holds their ids). */
  private async withMembers(groups: ScimGroupEntity[], memberIds: Map<number, number[]>): Promise<ScimGroupEntity[]> {
    const users = new Map((await this.users.findManyByIds([...memberIds.values()].flat())).map((user) => [user.id, user]));
    for (const group of groups) {
      group.members = (memberIds.get(group.id) ?? [])
        .map((id) => users.get(id))
        .filter((user) => user !== undefined)
        .sort((a, b) => a.id - b.id);
    }
    return groups;
  }

  create(actor: Principal, body: unknown): Promise<ScimGroupEntity> {
    return this.guardrails.serialised(async () => {
      const displayName = groupName(scimAttribute(body, 'displayName'));
      if (!displayName) throw new ScimError(HttpStatus.BAD_REQUEST, 'displayName is required', 'invalidValue');
      const externalId = bounded(scimString(scimAttribute(body, 'externalId')), 'externalId') ?? null;
      if (await this.groups.findByName(displayName)) throw new ScimError(HttpStatus.CONFLICT, `A group named ${displayName} exists`, 'uniqueness');
      const members = await this.usersFrom(scimAttribute(body, 'members'));
      const memberIds = new Set(members.map((m) => m.id));
      const roles = await this.roles.plan(memberIds, { id: null, displayName, memberIds });
      const group = await this.store({ displayName, externalId, createdAt: this.clock.now() }, [...memberIds], []);
      this.members.audit('scim.group_created', actor, null, { name: displayName, members: members.length }, `scim_group:${group.id}`);
      await this.roles.apply(actor, roles);
      return this.find(String(group.id));
    });
  }

  /** PUT (replace the whole group) and PATCH (operations) both end here. */
  change(actor: Principal, id: string, operations: PatchOperation[]): Promise<ScimGroupEntity> {
    return this.guardrails.serialised(async () => {
      const group = await this.find(id);
      const formerName = group.displayName;
      const before = new Set((group.members ?? []).map((m) => m.id));
      // By id, so adding to or removing from a large group is not a scan per member.
      const members = new Map((group.members ?? []).map((m) => [m.id, m]));
      for (const { op, path, value } of operations) {
        const target = (path ?? '').toLowerCase();
        const filtered = /^members\[value eq "([^"]+)"\]$/i.exec(path ?? '');
        if (op === 'remove' && filtered) {
          members.delete(Number(filtered[1]));
        } else if (target === 'members' || (!path && scimAttribute(value, 'members') !== undefined)) {
          const listed = await this.usersFrom(path ? value : scimAttribute(value, 'members'));
          if (op === 'replace') members.clear();
          for (const u of listed) {
            if (op === 'remove') members.delete(u.id);
            else members.set(u.id, u);
          }
        }
        const name = target === 'displayname' ? groupName(value) : !path ? groupName(scimAttribute(value, 'displayName')) : undefined;
        if (name && op !== 'remove') {
          const other = await this.groups.findByName(name);
          if (other && other.id !== group.id) throw new ScimError(HttpStatus.CONFLICT, `A group named ${name} exists`, 'uniqueness');
          group.displayName = name;
        }
        if (target === 'externalid' || (!path && scimAttribute(value, 'externalId') !== undefined)) {
          group.externalId = op === 'remove' ? null : (bounded(scimString(path ? value : scimAttribute(value, 'externalId')), 'externalId') ?? null);
        }
      }
      if (members.size > SCIM_LIMITS.groupMembers) throw tooManyMembers();
      const after = new Set(members.keys());
      // A rename changes what the group maps to, so everyone in it before or after is re-derived;
      // otherwise only those who joined or left.
      const affected = group.displayName !== formerName ? [...before, ...after] : [...before, ...after].filter((m) => before.has(m) !== after.has(m));
      const roles = await this.roles.plan(affected, { id: group.id, displayName: group.displayName, memberIds: after });
      await this.store(group, [...after].filter((m) => !before.has(m)), [...before].filter((m) => !after.has(m)));
      this.members.audit('scim.group_updated', actor, null, { name: group.displayName, members: members.size }, `scim_group:${group.id}`);
      await this.roles.apply(actor, roles);
      return this.find(id);
    });
  }

  delete(actor: Principal, id: string): Promise<void> {
    return this.guardrails.serialised(async () => {
      const group = await this.find(id);
      const roles = await this.roles.plan((group.members ?? []).map((m) => m.id), { id: group.id, displayName: null, memberIds: new Set() });
      await this.groups.delete(group.id);
      this.members.audit('scim.group_deleted', actor, null, { name: group.displayName }, `scim_group:${group.id}`);
      await this.roles.apply(actor, roles);
    });
  }

  /** The group's row and its membership changes in one transaction, membership rows IN_LIST_MAX at a time. */
  private store(group: Omit<ScimGroupEntity, 'id' | 'members'> & { id?: number }, added: number[], removed: number[]): Promise<{ id: number }> {
    return this.transactions.run(async (tx) => {
      const id = await this.groups.save(group, tx);
      await this.groups.changeMembers(id, added, removed, tx);
      return { id };
    });
  }

  /** The Users a members value names, at most SCIM_LIMITS.groupMembers of them, looked up in chunks. */
  private async usersFrom(value: unknown): Promise<UserEntity[]> {
    if (value === undefined || value === null) return [];
    const list = Array.isArray(value) ? value : [value];
    if (list.length > SCIM_LIMITS.groupMembers) throw tooManyMembers();
    const ids = list.map((m) => scimString(scimAttribute(m, 'value')) ?? '');
    if (ids.some((v) => !/^\d{1,9}$/.test(v))) throw new ScimError(HttpStatus.BAD_REQUEST, 'members must name Users by their id', 'invalidValue');
    const found = ids.length ? await this.users.findManyByIds(ids.map(Number)) : [];
    if (found.length !== new Set(ids.map(Number)).size) throw new ScimError(HttpStatus.BAD_REQUEST, 'members names a User that does not exist', 'invalidValue');
    return found;
  }
}

function groupName(value: unknown): string | undefined {
  return bounded(scimString(value), 'groupName', 'displayName');
}

function tooManyMembers(): ScimError {
  return new ScimError(HttpStatus.BAD_REQUEST, `A group has at most ${SCIM_LIMITS.groupMembers} members`, 'invalidValue');
}
