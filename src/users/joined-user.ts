import { UserEntity } from './user.entity';

/**
 * The member's columns (a Kysely select list) for a join on `users u` (the per-request credential lookups:
 * a session cookie, a PAT), where the query builder behind findOne(relations) cost several times
 * the query itself.
 */
export const JOINED_USER_COLUMNS = ['u.email', 'u.password_hash', 'u.display_name', 'u.role', 'u.avatar_path', 'u.created_at as user_created_at'] as const;

/** Those columns and the joining row's user_id, as the driver returns them (bigint columns may be strings). */
export interface JoinedUserRow {
  user_id: number | string;
  email: string;
  password_hash: string;
  display_name: string | null;
  role: UserEntity['role'];
  avatar_path: string | null;
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
    createdAt: epochDate(row.user_created_at),
  });
}

/** A timestamp column (epoch milliseconds) as the driver returns it. */
export const epochDate = (value: number | string) => new Date(Number(value));
