import type { Role } from './role';
import type { Scope } from './scope';

/** Who is calling, as established by the auth guard for one request. */
export interface Principal {
  userId: number;
  email: string;
  displayName: string | null;
  /** Read from the database on this request, so role changes apply at once. */
  role: Role;
  via: 'cookie' | 'pat';
  sessionId: number | null;
  tokenId: number | null;
  /** When the PAT stops being valid (null = never, or not a PAT); agent sockets close at this time. */
  tokenExpiresAt?: Date | null;
  scopes: Scope[];
}
