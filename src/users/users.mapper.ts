import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../common/auth/role';
import type { UserEntity } from './user.entity';

/** spec §2 "Current user". */
export class MeResponse {
  @ApiProperty()
  id: number;
  @ApiProperty()
  email: string;
  @ApiProperty({ description: 'display name, or the part of the e-mail before @ when none' })
  displayName: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when no profile image' })
  avatarUrl: string | null;
  @ApiProperty({ enum: ROLES })
  role: Role;
}

/** A member's name as shown to others: the display name, else the part of the e-mail before `@`. */
export function shownName(user: Pick<UserEntity, 'displayName' | 'email'>): string {
  return user.displayName || user.email.split('@')[0];
}

/** Public URL of a stored upload (`avatars/x.png` → `/uploads/avatars/x.png`). */
export function uploadUrl(path: string | null): string | null {
  return path ? `/uploads/${path}` : null;
}

export function toMeResponse(user: UserEntity): MeResponse {
  return {
    id: user.id,
    email: user.email,
    displayName: shownName(user),
    avatarUrl: uploadUrl(user.avatarPath),
    role: user.role,
  };
}
