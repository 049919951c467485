import { IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE } from '../../auth/dto/credentials.dto';
import { Trim } from '../../common/validation/transforms';
import { DISPLAY_NAME_MAX } from '../../users/users.service';
import { InvitationMessages } from '../invitation-messages';

/**
 * POST /invitations/accept text fields (multipart; the file `avatar` is optional), read with
 * validateFields(). `email` is checked by the service, and only when the invitation has none.
 */
export class AcceptInvitationFields {
  @IsNotEmpty({ message: InvitationMessages.tokenRequired })
  @IsString({ message: InvitationMessages.tokenRequired })
  token: string;

  @MaxLength(PASSWORD_MAX, { message: PASSWORD_RULE })
  @MinLength(PASSWORD_MIN, { message: PASSWORD_RULE })
  @IsString({ message: PASSWORD_RULE })
  password: string;

  @IsOptional()
  @Trim()
  @MaxLength(DISPLAY_NAME_MAX, { message: `display_name must be at most ${DISPLAY_NAME_MAX} characters` })
  display_name?: string;

  @IsOptional()
  @IsString()
  email?: string;
}
