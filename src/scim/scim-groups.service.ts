import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { scimAttribute, scimString, type PatchOperation } from './scim-bodies';
import { ScimError } from './scim-error';
import { ScimGroupEntity } from './scim-group.entity';
import { ScimMembersService } from './scim-members.service';

/** SCIM Groups: stored with their members; every membership change re-derives the members' roles. */
@Injectable()
export class ScimGroupsService {
  constructor(
    @InjectRepository(ScimGroupEntity) private readonly groups: Repository<ScimGroupEntity>,
    private readonly users: UsersService,
    private readonly members: ScimMembersService,
    private readonly clock: Clock,
  ) {}

  list(): Promise<ScimGroupEntity[]> {
    return this.groups.find({ order: { id: 'ASC' }, relations: { members: true } });
  }

  async find(id: string): Promise<ScimGroupEntity> {
    const group = /^\d{1,9}$/.test(id) ? await this.groups.findOne({ where: { id: Number(id) }, relations: { members: true } }) : null;
    if (!group) throw new ScimError(HttpStatus.NOT_FOUND, `Group ${id} not found`);
    return group;
  }

  create(actor: Principal, body: unknown): Promise<ScimGroupEntity> {
    return this.members.changes.run(async () => {
      const displayName = scimString(scimAttribute(body, 'displayName'));
      if (!displayName) throw new ScimError(HttpStatus.BAD_REQUEST, 'displayName is required', 'invalidValue');
      if (await this.groups.findOneBy({ displayName })) throw new ScimError(HttpStatus.CONFLICT, `A group named ${displayName} exists`, 'uniqueness');
      const members = await this.usersFrom(scimAttribute(body, 'members'));
      const group = await this.groups.save(
        this.groups.create({ displayName, externalId: scimString(scimAttribute(body, 'externalId')) ?? null, createdAt: this.clock.now(), members }),
      );
      this.members.audit('scim.group_created', actor, null, { name: displayName, members: members.length }, `scim_group:${group.id}`);
      await this.members.applyGroupRoles(actor, members.map((m) => m.id));
      return this.find(String(group.id));
    });
  }

  /** PUT (replace the whole group) and PATCH (operations) both end here. */
  change(actor: Principal, id: string, operations: PatchOperation[]): Promise<ScimGroupEntity> {
    return this.members.changes.run(async () => {
      const group = await this.find(id);
      const before = new Set((group.members ?? []).map((m) => m.id));
      let members = [...(group.members ?? [])];
      for (const { op, path, value } of operations) {
        const target = (path ?? '').toLowerCase();
        const filtered = /^members\[value eq "([^"]+)"\]$/i.exec(path ?? '');
        if (op === 'remove' && filtered) {
          members = members.filter((m) => String(m.id) !== filtered[1]);
        } else if (target === 'members' || (!path && scimAttribute(value, 'members') !== undefined)) {
          const listed = await this.usersFrom(path ? value : scimAttribute(value, 'members'));
          if (op === 'add') members = [...members, ...listed.filter((u) => !members.some((m) => m.id === u.id))];
          else if (op === 'remove') members = members.filter((m) => !listed.some((u) => u.id === m.id));
          else members = listed;
        }
        const name = target === 'displayname' ? scimString(value) : !path ? scimString(scimAttribute(value, 'displayName')) : undefined;
        if (name && op !== 'remove') {
          const other = await this.groups.findOneBy({ displayName: name });
          if (other && other.id !== group.id) throw new ScimError(HttpStatus.CONFLICT, `A group named ${name} exists`, 'uniqueness');
          group.displayName = name;
        }
        if (target === 'externalid' || (!path && scimAttribute(value, 'externalId') !== undefined)) {
          group.externalId = op === 'remove' ? null : (scimString(path ? value : scimAttribute(value, 'externalId')) ?? null);
        }
      }
      group.members = members;
      await this.groups.save(group);
      const after = new Set(members.map((m) => m.id));
      this.members.audit('scim.group_updated', actor, null, { name: group.displayName, members: members.length }, `scim_group:${group.id}`);
      // A rename changes what the group maps to, so everyone in it before or after is re-derived.
      await this.members.applyGroupRoles(actor, [...before, ...after]);
      return this.find(id);
    });
  }

  delete(actor: Principal, id: string): Promise<void> {
    return this.members.changes.run(async () => {
      const group = await this.find(id);
      await this.groups.delete({ id: group.id });
      this.members.audit('scim.group_deleted', actor, null, { name: group.displayName }, `scim_group:${group.id}`);
      await this.members.applyGroupRoles(actor, (group.members ?? []).map((m) => m.id));
    });
  }

  private async usersFrom(value: unknown): Promise<UserEntity[]> {
    if (value === undefined || value === null) return [];
    const list = Array.isArray(value) ? value : [value];
    const ids = list.map((m) => scimString(scimAttribute(m, 'value')) ?? '');
    if (ids.some((v) => !/^\d{1,9}$/.test(v))) throw new ScimError(HttpStatus.BAD_REQUEST, 'members must name Users by their id', 'invalidValue');
    const found = ids.length ? await this.users.findManyByIds(ids.map(Number)) : [];
    if (found.length !== new Set(ids).size) throw new ScimError(HttpStatus.BAD_REQUEST, 'members names a User that does not exist', 'invalidValue');
    return found;
  }
}
