import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../common/auth/role';

/** POST /team/invite (spec §4 Team). */
export class InviteResponse {
  @ApiProperty({ description: '64 hex characters; the invitation link carries it' })
  token: string;
  @ApiProperty({ description: 'false when SMTP is not configured or no e-mail was given' })
  emailSent: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the link the e-mail carries; null when no address a teammate can open is known',
  })
  inviteUrl: string | null;
}

/** GET /invitations/verify. */
export class InvitationRole {
  @ApiProperty({ enum: ROLES })
  role: Role;
}
