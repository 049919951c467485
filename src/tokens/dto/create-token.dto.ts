import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';
import { TOKEN_NAME_MAX } from '../tokens.service';

export class CreateTokenDto {
  @ApiProperty({ maxLength: TOKEN_NAME_MAX, example: 'CI uploads', description: 'a name the member already uses is numbered: "CI uploads (2)"' })
  @Trim()
  @IsString({ message: 'name is required' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(TOKEN_NAME_MAX, { message: `name must be at most ${TOKEN_NAME_MAX} characters` })
  name: string;

  /** Checked by TokensService.expiryFrom: numbers and numeric strings, so the rule lives in one place. */
  @ApiPropertyOptional({
    oneOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: '^[0-9.]+$' }],
    description: 'days until the token expires; omit or 0 = no expiry; a numeric string is accepted',
  })
  @IsOptional()
  expires_in_days?: number | string;

  @ApiPropertyOptional({
    example: 'view,builds:write',
    description: 'comma-separated: view, builds:write, agent, devices (agent: Admin only; devices: not Viewers); default view,builds:write',
  })
  @IsOptional()
  scope?: string;
}
