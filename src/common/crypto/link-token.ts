import { randomHex, sha256Hex } from './secret-token';

/** Tokens in e-mailed links (invitations, password resets): 32 random bytes as 64 hex characters. */
const LINK_TOKEN = /^[0-9a-f]{64}$/;

export function newLinkToken(): { token: string; hash: string } {
  const token = randomHex(32);
  return { token, hash: sha256Hex(token) };
}

/** The stored hash a presented token would have, or null when it cannot be a link token at all. */
export function linkTokenHash(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const token = value.toLowerCase();
  return LINK_TOKEN.test(token) ? sha256Hex(token) : null;
}
