import { Injectable } from '@nestjs/common';
import { inLists } from '../database/in-lists';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from '../users/joined-user';
import { ScimGroupEntity } from './scim-group.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

const COLUMNS = ['g.id', 'g.display_name', 'g.external_id', 'g.created_at'] as const;

interface GroupRow {
  id: number | string;
  display_name: string;
  external_id: string | null;
  created_at: number | string;
}

/** A group's row, without its members (the users module gives those, by id). */
function toGroup(row: GroupRow): ScimGroupEntity {
  return Object.assign(new ScimGroupEntity(), {
    id: Number(row.id),
    displayName: row.display_name,
    externalId: row.external_id,
    createdAt: epochDate(row.created_at),
  });
}

/**
 * The scim_groups table and its members (scim_group_members), the SCIM module's. Without
 * `tx`, on the data source's, as a TypeORM repository's did.
 */
@Injectable()
export class ScimGroupsRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Every group in id order. */
  async list(): Promise<ScimGroupEntity[]> {
    const statement = this.sql.prepare('scimGroups.all', () => this.sql.db.selectFrom('scim_groups as g').select(COLUMNS).orderBy('g.id'));
    return (await statement.run<GroupRow>(this.db, {})).map(toGroup);
  }

  async findById(id: number): Promise<ScimGroupEntity | null> {
    const statement = this.sql.prepare('scimGroups.byId', (v: { id: number }) => this.sql.db.selectFrom('scim_groups as g').select(COLUMNS).where('g.id', '=', v.id));
    const [row] = await statement.run<GroupRow>(this.db, { id });
    return row ? toGroup(row) : null;
  }

  async findByName(displayName: string): Promise<ScimGroupEntity | null> {
    const statement = this.sql.prepare('scimGroups.byName', (v: { displayName: string }) =>
      this.sql.db.selectFrom('scim_groups as g').select(COLUMNS).where('g.display_name', '=', v.displayName),
    );
    const [row] = await statement.run<GroupRow>(this.db, { displayName });
    return row ? toGroup(row) : null;
  }

  /** The groups a member is in, in id order. */
  async groupsOf(userId: number): Promise<ScimGroupEntity[]> {
    const statement = this.sql.prepare('scimGroups.of', (v: { userId: number }) =>
      this.sql.db
        .selectFrom('scim_groups as g')
        .innerJoin('scim_group_members as m', 'm.group_id', 'g.id')
        .select(COLUMNS)
        .where('m.user_id', '=', v.userId)
        .orderBy('g.id'),
    );
    return (await statement.run<GroupRow>(this.db, { userId })).map(toGroup);
  }

  /** Member ids per group (every group's, or one group's). */
  async memberIds(groupId?: number): Promise<Map<number, number[]>> {
    const statement = this.sql.prepare(`scimGroups.memberIds ${groupId === undefined ? 'all' : 'one'}`, (v: { groupId: number }) => {
      const query = this.sql.db.selectFrom('scim_group_members').select(['group_id', 'user_id']);
      return groupId === undefined ? query : query.where('group_id', '=', v.groupId);
    });
    const members = new Map<number, number[]>();
    for (const row of await statement.run<{ group_id: number | string; user_id: number | string }>(this.db, { groupId: groupId ?? 0 })) {
      const id = Number(row.group_id);
      members.set(id, [...(members.get(id) ?? []), Number(row.user_id)]);
    }
    return members;
  }

  /** The groups each of these members is in (id and name), IN_LIST_MAX members per statement. */
  async groupsOfMembers(userIds: number[]): Promise<{ userId: number; groupId: number; name: string }[]> {
    const found: { userId: number; groupId: number; name: string }[] = [];
    for (const list of inLists(userIds)) {
      const statement = this.sql.prepare(`scimGroups.ofMembers ${list.length}`, (v: number[]) =>
        this.sql.db
          .selectFrom('scim_groups as g')
          .innerJoin('scim_group_members as m', 'm.group_id', 'g.id')
          .select(['m.user_id', 'g.id', 'g.display_name'])
          .where(
            'm.user_id',
            'in',
            list.map((_, i) => v[i]),
          ),
      );
      for (const row of await statement.run<{ user_id: number | string; id: number | string; display_name: string }>(this.db, list)) {
        found.push({ userId: Number(row.user_id), groupId: Number(row.id), name: row.display_name });
      }
    }
    return found;
  }

  /** Inserts the group (no id yet) or updates its name and externalId; returns its id. In `tx`'s transaction. */
  async save(group: Omit<ScimGroupEntity, 'id' | 'members'> & { id?: number }, tx: Sql): Promise<number> {
    const values = { id: group.id ?? 0, displayName: group.displayName, externalId: group.externalId, createdAt: group.createdAt.getTime() };
    if (group.id === undefined) {
      const insert = this.sql.prepare('scimGroups.insert', (v: typeof values) =>
        this.sql.db.insertInto('scim_groups').values({ display_name: v.displayName, external_id: v.externalId, created_at: v.createdAt }).returning('id'),
      );
      const [row] = await insert.run<{ id: number | string }>(tx, values);
      return Number(row.id);
    }
    const update = this.sql.prepare('scimGroups.update', (v: typeof values) =>
      this.sql.db.updateTable('scim_groups').set({ display_name: v.displayName, external_id: v.externalId }).where('id', '=', v.id),
    );
    await update.run(tx, values);
    return group.id;
  }

  /** Adds and removes members of a group, IN_LIST_MAX per statement, in `tx`'s transaction. */
  async changeMembers(groupId: number, added: number[], removed: number[], tx: Sql): Promise<void> {
    for (const list of inLists(added)) {
      const statement = this.sql.prepare(`scimGroups.addMembers ${list.length}`, (v: Record<string, never>) =>
        this.sql.db.insertInto('scim_group_members').values(list.map((_, i) => ({ group_id: v.groupId, user_id: v[`id${i}`] }))),
      );
      await statement.run(tx, { groupId, ...Object.fromEntries(list.map((id, i) => [`id${i}`, id])) } as never);
    }
    for (const list of inLists(removed)) {
      const statement = this.sql.prepare(`scimGroups.removeMembers ${list.length}`, (v: Record<string, never>) =>
        this.sql.db
          .deleteFrom('scim_group_members')
          .where('group_id', '=', v.groupId)
          .where(
            'user_id',
            'in',
            list.map((_, i) => v[`id${i}`]),
          ),
      );
      await statement.run(tx, { groupId, ...Object.fromEntries(list.map((id, i) => [`id${i}`, id])) } as never);
    }
  }

  async delete(id: number): Promise<void> {
    const statement = this.sql.prepare('scimGroups.delete', (v: { id: number }) => this.sql.db.deleteFrom('scim_groups').where('id', '=', v.id));
    await statement.run(this.db, { id });
  }
}
