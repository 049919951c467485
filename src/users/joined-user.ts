import { UserEntity } from './user.entity';

/**
 * The member's columns (a Kysely select list) for a join on `users u` (the per-request credential lookups:
 * a session cookie, a PAT), where the query builder behind findOne(relations) cost several times
 * the query itself.
 */
export const JOINED_USER_COLUMNS = [
  'u.email',
  'u.password_hash',
  'u.display_name',
  'u.role',
  'u.avatar_path',
  'u.active',
  'u.created_at as user_created_at',
] as const;

/** Those columns and the joining row's user_id, as the driver returns them (bigint columns may be strings). */
export interface JoinedUserRow {
  user_id: number | string;
  email: string;
  password_hash: string;
  display_name: string | null;
  role: UserEntity['role'];
  avatar_path: string | null;
  /** A boolean on PostgreSQL, 1 or 0 on SQLite. */
  active: boolean | number;
  user_created_at: number | string;
}

export function joinedUser(row: JoinedUserRow): UserEntity {
  return Object.assign(new UserEntity(), {
    id: Number(row.user_id),
    email: row.email,
    passwordHash: row.password_hash,
    displayName: row.display_name,
    role: row.role,
    avatarPath: row.avatar_path,
    active: row.active === true || Number(row.active) === 1,
    createdAt: epochDate(row.user_created_at),
  });
}

/**
 * The member a credential (session cookie, PAT) belongs to, or null when that credential lets
 * nobody in: an inactive member holds no credential, whatever is still stored (docs/identity.md
 * "Offboarding is final"). Both credential lookups go through here, so every caller of them (the
 * authenticator for HTTP and WebSocket upgrades, the event stream's re-check) sees the same rule.
 */
export function credentialHolder(row: JoinedUserRow): UserEntity | null {
  const user = joinedUser(row);
  return user.active ? user : null;
}

/** A timestamp column (epoch milliseconds) as the driver returns it. */
export const epochDate = (value: number | string) => new Date(Number(value));
