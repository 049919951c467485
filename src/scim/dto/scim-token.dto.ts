import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { isoWithMillis, nullableIso } from '../../common/time';
import type { ScimTokenEntity } from '../../tokens/scim-token.entity';
import { Trim } from '../../common/validation/transforms';

export class CreateScimTokenDto {
  @ApiProperty({ example: 'Okta', maxLength: 200 })
  @Trim()
  @IsString()
  @Length(1, 200)
  name: string;
}

export class ScimTokenListItem {
  @ApiProperty()
  id: number;
  @ApiProperty()
  name: string;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at: string | null;
}

export class ScimTokenCreatedResponse extends ScimTokenListItem {
  @ApiProperty({ description: 'svc_scim_…, shown only once' })
  token: string;
}

export function toScimTokenListItem(token: ScimTokenEntity): ScimTokenListItem {
  return { id: token.id, name: token.name, created_at: isoWithMillis(token.createdAt), last_used_at: nullableIso(token.lastUsedAt) };
}
