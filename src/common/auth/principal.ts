import type { Role } from './role';
import type { Scope } from './scope';
import type { SignInMethod } from './sign-in-method';

/** Who is calling, as established by the auth guard for one request. */
export interface Principal {
  userId: number;
  email: string;
  displayName: string | null;
  /** Read from the database on this request, so role changes apply at once. */
  role: Role;
  /**
   * `scim`: an identity provider with a SCIM token (no member: userId 0, the token's name as email);
   * `slack`: a member pressing a button in Slack, matched by e-mail (src/chat/slack).
   */
  via: 'cookie' | 'pat' | 'scim' | 'slack';
  sessionId: number | null;
  /** A cookie caller's: how their session signed in (the two-factor policy reads it); absent for PATs and SCIM. */
  signInMethod?: SignInMethod;
  tokenId: number | null;
  /** When the credential stops being valid (the session's or the PAT's expiry; null = never); sockets close then. */
  expiresAt: Date | null;
  scopes: Scope[];
  /** The caller's address (the socket peer, or the forwarded one via trusted proxies), for the audit log. */
  clientAddress: string | null;
  /**
   * A PAT call made by the relay's MCP tools (POST /api/v1/mcp, `svc mcp`): they say so with their
   * User-Agent. Only the audit log reads it, to tell MCP from other PAT use; it grants nothing.
   */
  viaMcp: boolean;
}

/** The User-Agent the relay's MCP tools send on their own REST and socket calls (src/mcp). */
export const MCP_USER_AGENT = 'svc-mcp';
