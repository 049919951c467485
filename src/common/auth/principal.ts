import type { Role } from './role';
import type { Scope } from './scope';

/** Who is calling, as established by the auth guard for one request. */
export interface Principal {
  userId: number;
  email: string;
  displayName: string | null;
  /** Read from the database on this request, so role changes apply at once. */
  role: Role;
  /** `scim`: an identity provider with a SCIM token (no member: userId 0, the token's name as email). */
  via: 'cookie' | 'pat' | 'scim';
  sessionId: number | null;
  tokenId: number | null;
  /** When the credential stops being valid (the session's or the PAT's expiry; null = never); sockets close then. */
  expiresAt: Date | null;
  scopes: Scope[];
}
