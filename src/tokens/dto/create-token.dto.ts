import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

export class CreateTokenDto {
  @Trim()
  @IsString({ message: 'name is required' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(200)
  name: string;

  /** Days until the token expires; omit or 0 for no expiry. A numeric string is accepted. */
  @IsOptional()
  expires_in_days?: number | string;

  /** Comma-separated scopes (`view`, `builds:write`, `agent`); default `view,builds:write`. */
  @IsOptional()
  scope?: string;
}
