import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ClusterBus } from '../cluster/cluster-bus';
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
 * The same rule, kept in Redis so every instance counts the pair's attempts together (one script,
 * so parallel attempts on several instances cannot all slip in). KEYS: failures (sorted set of
 * attempt times), block (blocked-until time). ARGV: now, window, max failures, a unique member.
 * Returns the blocked-until time while blocked, else 0 (the attempt is counted).
 */
const COUNT_ATTEMPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local blocked = tonumber(redis.call('get', KEYS[2]) or '0')
if blocked > now then return blocked end
redis.call('zremrangebyscore', KEYS[1], '-inf', now - window)
redis.call('zadd', KEYS[1], now, ARGV[4])
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[3]) then
  redis.call('del', KEYS[1])
  redis.call('set', KEYS[2], now + window, 'PX', window)
else
  redis.call('pexpire', KEYS[1], window)
end
return 0`;

/**
 * Brute-force brake keyed by (client address, normalised e-mail): another e-mail from the same
 * address, or the same e-mail from another address, is unaffected, so nobody can lock a member out
 * from elsewhere. A success clears the pair. Alone, kept in memory (a restart clears it, documented);
 * with Redis (docs/scaling.md), kept there and counted across instances.
 */
@Injectable()
export class LoginThrottleService {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly bus: ClusterBus,
  ) {}

  /**
   * Starts a sign-in attempt: 429 with Retry-After while the pair is blocked; otherwise the attempt
   * is counted as a failure right away, before the password is checked, so a burst of parallel
   * guesses cannot all slip in while bcrypt runs. recordSuccess() clears the pair.
   */
  async beginAttempt(address: string, email: string): Promise<void> {
    const now = this.clock.nowMs();
    const blockedUntil = this.bus.clustered ? await this.countShared(address, email, now) : this.countHere(address, email, now);
    if (blockedUntil > now) {
      const retryAfter = Math.max(1, Math.ceil((blockedUntil - now) / 1000));
      throw new HttpError(429, ErrorMessages.tooManyAttempts, { 'Retry-After': String(retryAfter) });
    }
  }

  async recordSuccess(address: string, email: string): Promise<void> {
    if (this.bus.clustered) await this.bus.redis.del(...this.sharedKeys(address, email));
    else this.buckets.delete(key(address, email));
  }

  /** Blocked-until time of the pair, or 0 after counting this attempt. */
  private countHere(address: string, email: string, now: number): number {
    const bucket = this.buckets.get(key(address, email));
    if (bucket && bucket.blockedUntil > now) return bucket.blockedUntil;
    this.recordFailure(address, email);
    return 0;
  }

  private async countShared(address: string, email: string, now: number): Promise<number> {
    const blocked = await this.bus.redis.eval(
      COUNT_ATTEMPT,
      2,
      ...this.sharedKeys(address, email),
      now,
      LOGIN_WINDOW_MS,
      LOGIN_MAX_FAILURES,
      `${now}:${randomUUID()}`,
    );
    return Number(blocked);
  }

  /** Hashed, so an e-mail never sits in Redis in clear and key length stays fixed. */
  private sharedKeys(address: string, email: string): [string, string] {
    const digest = createHash('sha256').update(key(address, email)).digest('hex');
    return [this.bus.key(`login:failures:${digest}`), this.bus.key(`login:blocked:${digest}`)];
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

}

function key(address: string, email: string): string {
  return `${address}|${email.trim().toLowerCase()}`;
}
