import { createHmac, timingSafeEqual } from 'node:crypto';
import { HOUR_MS } from '../common/time';

/** How long a download stays open after the password was entered on the install page. */
export const GRANT_TTL_MS = HOUR_MS;

/**
 * Proof, carried in the download URL the unlocked install page shows, that this visitor entered the
 * link's password: `<expiry ms>.<HMAC-SHA256 of "<link id>.<expiry>">`, keyed by the link's bcrypt
 * hash. That hash never leaves the relay, so nobody can forge a grant, every instance of a cluster
 * checks it without shared state, and a phone's download manager (which may drop cookies) keeps it.
 */
export function downloadGrant(linkId: number, passwordHash: string, nowMs: number): string {
  const expires = nowMs + GRANT_TTL_MS;
  return `${expires}.${mac(linkId, passwordHash, expires)}`;
}

export function isValidGrant(grant: unknown, linkId: number, passwordHash: string, nowMs: number): boolean {
  if (typeof grant !== 'string') return false;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(grant);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= nowMs) return false;
  return timingSafeEqual(Buffer.from(match[2]), Buffer.from(mac(linkId, passwordHash, expires)));
}

function mac(linkId: number, passwordHash: string, expires: number): string {
  return createHmac('sha256', passwordHash).update(`${linkId}.${expires}`).digest('base64url');
}
