import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { HttpError } from '../common/errors/http-error';
import { MINUTE_MS } from '../common/time';

/** 5 failed sign-ins for one (client address, e-mail) within 15 minutes block that pair for 15 minutes. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_WINDOW_MS = 15 * MINUTE_MS;
/** Bound on tracked pairs so a flood of distinct e-mails cannot grow memory without limit. */
const MAX_TRACKED = 50_000;

interface Bucket {
  failures: number[];
  blockedUntil: number;
}

/**
 * Brute-force brake keyed by (client address, normalised e-mail): another e-mail from the same
 * address, or the same e-mail from another address, is unaffected, so nobody can lock a member out
 * from elsewhere. A success clears the pair. Kept in memory: a restart clears it (documented).
 */
@Injectable()
export class LoginThrottleService {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock) {}

  /**
   * Starts a sign-in attempt: 429 with Retry-After while the pair is blocked; otherwise the attempt
   * is counted as a failure right away, before the password is checked, so a burst of parallel
   * guesses cannot all slip in while bcrypt runs. recordSuccess() clears the pair.
   */
  beginAttempt(address: string, email: string): void {
    const bucket = this.buckets.get(key(address, email));
    const now = this.clock.nowMs();
    if (bucket && bucket.blockedUntil > now) {
      const retryAfter = Math.max(1, Math.ceil((bucket.blockedUntil - now) / 1000));
      throw new HttpError(429, ErrorMessages.tooManyAttempts, { 'Retry-After': String(retryAfter) });
    }
    this.recordFailure(address, email);
  }

  private recordFailure(address: string, email: string): void {
    const k = key(address, email);
    const now = this.clock.nowMs();
    const bucket = this.buckets.get(k) ?? { failures: [], blockedUntil: 0 };
    bucket.failures = bucket.failures.filter((t) => now - t < LOGIN_WINDOW_MS);
    bucket.failures.push(now);
    if (bucket.failures.length >= LOGIN_MAX_FAILURES) {
      bucket.blockedUntil = now + LOGIN_WINDOW_MS;
      bucket.failures = [];
    }
    this.buckets.delete(k);
    this.buckets.set(k, bucket);
    if (this.buckets.size > MAX_TRACKED) this.buckets.delete(this.buckets.keys().next().value as string);
  }

  recordSuccess(address: string, email: string): void {
    this.buckets.delete(key(address, email));
  }
}

function key(address: string, email: string): string {
  return `${address}|${email.trim().toLowerCase()}`;
}
