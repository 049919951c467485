import { IsOptional, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';
import { DISPLAY_NAME_MAX } from '../../users/users.service';

/** PATCH /profile text field (multipart, with the optional file `avatar`), read with validateFields(). */
export class UpdateProfileFields {
  /** An empty value clears the display name; an absent one leaves it alone. */
  @IsOptional()
  @Trim()
  @MaxLength(DISPLAY_NAME_MAX, { message: `display_name must be at most ${DISPLAY_NAME_MAX} characters` })
  display_name?: string;
}
