import type { Role } from '../common/auth/role';
import { isoWithMillis } from '../common/time';
import type { UserEntity } from '../users/user.entity';
import { shownName } from '../users/users.mapper';

/** spec §2 "Member (team list)". */
export interface Member {
  id: number;
  email: string;
  display_name: string;
  role: Role;
  joined_at: string;
}

export function toMember(user: UserEntity): Member {
  return {
    id: user.id,
    email: user.email,
    display_name: shownName(user),
    role: user.role,
    joined_at: isoWithMillis(user.createdAt),
  };
}
