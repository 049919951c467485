import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, MaxLength } from 'class-validator';
import { ROLES, Role } from '../../common/auth/role';
import { Trim } from '../../common/validation/transforms';

export class CreateInvitationDto {
  /** Omit to create an invitation without e-mail (the link is handed over another way). */
  @ApiPropertyOptional({ format: 'email', maxLength: 320, description: 'omit to send no invitation e-mail' })
  @IsOptional()
  @Trim()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email?: string;

  @ApiPropertyOptional({ enum: ROLES, default: 'QA' })
  @IsOptional()
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role?: Role;
}
