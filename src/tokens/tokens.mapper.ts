import { isoWithMillis, nullableIso } from '../common/time';
import type { PersonalAccessTokenEntity } from './personal-access-token.entity';

/** spec §2 "Personal access token (list item)". */
export interface TokenListItem {
  id: number;
  name: string;
  scope: string;
  last_used_at: string;
  expires_at: string | null;
  created_at: string;
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
