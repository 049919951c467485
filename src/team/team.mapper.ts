import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../common/auth/role';
import { isoWithMillis } from '../common/time';
import type { UserEntity } from '../users/user.entity';
import { shownName, uploadUrl } from '../users/users.mapper';

/** spec §2 "Member (team list)". */
export class Member {
  @ApiProperty()
  id: number;
  @ApiProperty()
  email: string;
  @ApiProperty({ description: 'display name, or the part of the e-mail before @ when none' })
  display_name: string;
  @ApiProperty({ enum: ROLES })
  role: Role;
  @ApiProperty({ format: 'date-time' })
  joined_at: string;
  @ApiProperty({ type: String, nullable: true, description: 'beyond the spec: the profile image, null when none (as /auth/me avatarUrl)' })
  avatar_url: string | null;
}

export function toMember(user: UserEntity): Member {
  return {
    id: user.id,
    email: user.email,
    display_name: shownName(user),
    role: user.role,
    joined_at: isoWithMillis(user.createdAt),
    avatar_url: uploadUrl(user.avatarPath),
  };
}
