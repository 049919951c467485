import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../common/auth/role';
import { isoWithMillis } from '../common/time';
import type { InvitationEntity } from './invitation.entity';

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

/** GET /invitations/verify: spec §4's `{ role }`, and beyond it what the invitee's page shows (docs/team.md). */
export class InvitationDetails {
  @ApiProperty({ enum: ROLES })
  role: Role;
  @ApiProperty({ type: String, nullable: true, description: 'beyond the spec: the invited address; null for an invitation without one' })
  email: string | null;
  @ApiProperty({ description: 'beyond the spec: the team the invitation joins' })
  team_name: string;
  @ApiProperty({ type: String, nullable: true, description: 'beyond the spec: who invited (display name); null once their account is gone' })
  invited_by: string | null;
}

/**
 * GET /team/invitations (beyond the spec, docs/team.md): an invitation not yet accepted and not
 * expired. The token is stored only as a hash, so the link itself is shown only when created.
 */
export class OpenInvitation {
  @ApiProperty()
  id: number;
  @ApiProperty({ type: String, nullable: true, description: 'null for an invitation created without an e-mail' })
  email: string | null;
  @ApiProperty({ enum: ROLES })
  role: Role;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export function toOpenInvitation(invitation: InvitationEntity): OpenInvitation {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    created_at: isoWithMillis(invitation.createdAt),
    expires_at: isoWithMillis(invitation.expiresAt),
  };
}
