import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis, nullableIso } from '../common/time';
import type { PersonalAccessTokenEntity } from './personal-access-token.entity';

/** spec §2 "Personal access token (list item)". */
export class TokenListItem {
  @ApiProperty()
  id: number;
  @ApiProperty()
  name: string;
  @ApiProperty({ example: 'view,builds:write', description: 'comma-separated scopes' })
  scope: string;
  @ApiProperty({ format: 'date-time', description: 'equals created_at until the first use' })
  last_used_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null = no expiry' })
  expires_at: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** POST /tokens: the value, returned only once. */
export class TokenCreatedResponse {
  @ApiProperty({ example: 'svc_pat_…' })
  token: string;
}

export function toTokenListItem(token: PersonalAccessTokenEntity): TokenListItem {
  return {
    id: token.id,
    name: token.name,
    scope: token.scope,
    last_used_at: isoWithMillis(token.lastUsedAt),
    expires_at: nullableIso(token.expiresAt),
    created_at: isoWithMillis(token.createdAt),
  };
}
