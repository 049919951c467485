import { Injectable } from '@nestjs/common';
import type { Role } from '../common/auth/role';
import { inLists } from '../database/in-lists';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { epochDate } from './joined-user';
import { UserEntity } from './user.entity';
import { SqlExecutor } from '../database/sql-executor';
import type { Sql } from '../database/sql';

/** The columns a statement may change, by the entity's property names. */
export type UserChanges = Partial<Pick<UserEntity, 'displayName' | 'role' | 'avatarPath' | 'email' | 'active' | 'scimExternalId' | 'breakGlass' | 'passwordHash'>>;

const COLUMNS = ['id', 'email', 'password_hash', 'display_name', 'role', 'avatar_path', 'break_glass', 'active', 'scim_external_id', 'created_at'] as const;

/** Property → column, for the changes an update may carry. */
const CHANGE_COLUMNS = {
  displayName: 'display_name',
  role: 'role',
  avatarPath: 'avatar_path',
  email: 'email',
  active: 'active',
  scimExternalId: 'scim_external_id',
  breakGlass: 'break_glass',
  passwordHash: 'password_hash',
} as const satisfies Record<keyof UserChanges, string>;

const BOOLEAN_CHANGES = new Set<keyof UserChanges>(['active', 'breakGlass']);

/** A users row as the drivers return it (bigint columns may be strings; booleans 1/0 on SQLite). */
interface UserRow {
  id: number | string;
  email: string;
  password_hash: string;
  display_name: string | null;
  role: Role;
  avatar_path: string | null;
  break_glass: boolean | number;
  active: boolean | number;
  scim_external_id: string | null;
  created_at: number | string;
}

const bool = (value: boolean | number) => value === true || Number(value) === 1;

function toUser(row: UserRow): UserEntity {
  return Object.assign(new UserEntity(), {
    id: Number(row.id),
    email: row.email,
    passwordHash: row.password_hash,
    displayName: row.display_name,
    role: row.role,
    avatarPath: row.avatar_path,
    breakGlass: bool(row.break_glass),
    active: bool(row.active),
    scimExternalId: row.scim_external_id,
    createdAt: epochDate(row.created_at),
  });
}

/**
 * The users table; only the users module reads or writes it (other modules ask UsersService). A
 * statement without `tx` runs on the data source's, as a TypeORM repository did; with one, in
 * that transaction.
 */
@Injectable()
export class UsersRepository {
  private readonly sql: QueryBuilder;

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async count(): Promise<number> {
    const statement = this.sql.prepare('users.count', () => this.sql.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')));
    const [row] = await statement.run<{ n: number | string }>(this.db, {});
    return Number(row.n);
  }

  async findById(id: number, tx: Sql = this.db): Promise<UserEntity | null> {
    const statement = this.sql.prepare('users.byId', (v: { id: number }) => this.sql.db.selectFrom('users').select(COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<UserRow>(tx, { id });
    return row ? toUser(row) : null;
  }

  /** `email` as stored (trimmed, lower-cased). */
  async findByEmail(email: string, on: Sql = this.db): Promise<UserEntity | null> {
    const statement = this.sql.prepare('users.byEmail', (v: { email: string }) => this.sql.db.selectFrom('users').select(COLUMNS).where('email', '=', v.email));
    const [row] = await statement.run<UserRow>(on, { email });
    return row ? toUser(row) : null;
  }

  /** In no particular order; IN_LIST_MAX ids per statement, so any number of ids fits the databases' limits. */
  async findManyByIds(ids: number[]): Promise<UserEntity[]> {
    const found: UserEntity[] = [];
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`users.byIds ${list.length}`, (v: number[]) =>
        this.sql.db
          .selectFrom('users')
          .select(COLUMNS)
          .where(
            'id',
            'in',
            list.map((_, i) => v[i]),
          ),
      );
      found.push(...(await statement.run<UserRow>(this.db, list)).map(toUser));
    }
    return found;
  }

  async list(): Promise<UserEntity[]> {
    const statement = this.sql.prepare('users.all', () => this.sql.db.selectFrom('users').select(COLUMNS).orderBy('id'));
    return (await statement.run<UserRow>(this.db, {})).map(toUser);
  }

  /** Active Admins; only break-glass ones when asked. */
  async countActiveAdmins(breakGlassOnly: boolean): Promise<number> {
    const statement = this.sql.prepare(`users.activeAdmins ${breakGlassOnly}`, (v: { role: Role; yes: boolean }) => {
      let query = this.sql.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('role', '=', v.role).where('active', '=', v.yes);
      if (breakGlassOnly) query = query.where('break_glass', '=', v.yes);
      return query;
    });
    const [row] = await statement.run<{ n: number | string }>(this.db, { role: 'Admin', yes: this.sql.bool(true) as boolean });
    return Number(row.n);
  }

  /** Inserts a member (in `tx`'s transaction) and returns the stored row. */
  async insert(user: Omit<UserEntity, 'id'>, tx: Sql): Promise<UserEntity> {
    const statement = this.sql.prepare('users.insert', (v: Record<(typeof COLUMNS)[number], never>) =>
      this.sql.db
        .insertInto('users')
        .values({
          email: v.email,
          password_hash: v.password_hash,
          display_name: v.display_name,
          role: v.role,
          avatar_path: v.avatar_path,
          break_glass: v.break_glass,
          active: v.active,
          scim_external_id: v.scim_external_id,
          created_at: v.created_at,
        })
        .returning(COLUMNS),
    );
    const [row] = await statement.run<UserRow>(tx, {
      email: user.email,
      password_hash: user.passwordHash,
      display_name: user.displayName,
      role: user.role,
      avatar_path: user.avatarPath,
      break_glass: this.sql.bool(user.breakGlass),
      active: this.sql.bool(user.active),
      scim_external_id: user.scimExternalId,
      created_at: user.createdAt.getTime(),
    } as never);
    return toUser(row);
  }

  async avatarPaths(): Promise<string[]> {
    const statement = this.sql.prepare('users.avatarPaths', () => this.sql.db.selectFrom('users').select('avatar_path').where('avatar_path', 'is not', null));
    return (await statement.run<{ avatar_path: string }>(this.db, {})).map((row) => row.avatar_path);
  }

  /** Applies the changes given (a property left undefined is left alone) to these members; one statement per IN_LIST_MAX ids. */
  async update(ids: number[], changes: UserChanges, tx: Sql = this.db): Promise<void> {
    const properties = (Object.keys(CHANGE_COLUMNS) as (keyof UserChanges)[]).filter((property) => changes[property] !== undefined);
    if (!properties.length) return;
    const values: Record<string, unknown> = {};
    for (const property of properties) {
      const value = changes[property];
      values[property] = BOOLEAN_CHANGES.has(property) ? this.sql.bool(value as boolean) : value;
    }
    for (const list of inLists(ids)) {
      const statement = this.sql.prepare(`users.update ${properties.join(',')} ${list.length}`, (v: Record<string, unknown>) =>
        this.sql.db
          .updateTable('users')
          .set(Object.fromEntries(properties.map((property) => [CHANGE_COLUMNS[property], v[property]])) as never)
          .where(
            'id',
            'in',
            list.map((_, i) => v[`id${i}`] as number),
          ),
      );
      await statement.run(tx, { ...values, ...Object.fromEntries(list.map((id, i) => [`id${i}`, id])) });
    }
  }

  /** The member's avatar path, the row locked until `tx`'s transaction ends on PostgreSQL (row-lock.ts); undefined when there is no such member. */
  async avatarForUpdate(id: number, tx: Sql): Promise<{ avatarPath: string | null } | undefined> {
    const statement = this.sql.prepare('users.avatarForUpdate', (v: { id: number }) => {
      const query = this.sql.db.selectFrom('users').select('avatar_path').where('id', '=', v.id);
      return this.sql.postgres ? query.forUpdate() : query;
    });
    const [row] = await statement.run<{ avatar_path: string | null }>(tx, { id });
    return row ? { avatarPath: row.avatar_path } : undefined;
  }

  async delete(id: number): Promise<void> {
    const statement = this.sql.prepare('users.delete', (v: { id: number }) => this.sql.db.deleteFrom('users').where('id', '=', v.id));
    await statement.run(this.db, { id });
  }
}
