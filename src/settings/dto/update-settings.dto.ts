import { IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

export const TEAM_NAME_MAX = 200;

/** PATCH /settings text field (multipart, with the optional file `logo`), read with validateFields(). */
export class UpdateSettingsFields {
  @IsOptional()
  @Trim()
  @MaxLength(TEAM_NAME_MAX, { message: `team_name must be at most ${TEAM_NAME_MAX} characters` })
  @IsNotEmpty({ message: 'team_name must not be empty' })
  team_name?: string;
}
