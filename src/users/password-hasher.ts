import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { HttpError } from '../common/errors/http-error';
import { RelayConfig } from '../config/relay-config';
import { PasswordWorkers } from './password-workers';

/**
 * bcrypt silently ignores input past 72 bytes, so a long password would sign in with only its
 * first 72 bytes. Every password is first reduced to base64(SHA-256(password)) (44 ASCII bytes,
 * no NUL), so all of it counts. Hashing runs on threads of its own (`PasswordWorkers`), never on
 * libuv's pool, where it would hold up file I/O.
 */
@Injectable()
export class PasswordHasher implements OnModuleDestroy {
  private readonly workers: PasswordWorkers;
  /**
   * A hash of a random password, compared against when the e-mail is unknown (equal timing).
   * Computed at start-up so even the first unknown e-mail costs one comparison, not a hash too.
   */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly config: RelayConfig) {
    this.workers = new PasswordWorkers(config.passwordWorkers);
    this.decoyHash = this.hash(randomBytes(16).toString('hex'));
    // A relay stopped before the hash is done rejects it; nobody awaits it then.
    this.decoyHash.catch(() => undefined);
  }

  /**
   * Refuses a password check that would queue longer than a second behind others (a burst of
   * sign-ins beyond what the workers hash): 503 with Retry-After at once, rather than every sign-in
   * waiting seconds and holding its request open. Asked before anything is counted or checked.
   */
  admit(): void {
    const waitMs = this.workers.waitEstimateMs;
    if (waitMs <= MAX_QUEUE_WAIT_MS) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpError(503, `The relay is busy checking passwords; try again in ${seconds} s.`, { 'Retry-After': String(seconds) });
  }

  hash(password: string): Promise<string> {
    return this.workers.hash(prehash(password), this.config.bcryptCost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.workers.compare(prehash(password), hash);
  }

  /** Spends the same work as verify() for a login whose e-mail matched nobody. */
  async verifyDecoy(password: string): Promise<false> {
    await this.workers.compare(prehash(password), await this.decoyHash);
    return false;
  }

  onModuleDestroy(): Promise<void> {
    return this.workers.close();
  }
}

const MAX_QUEUE_WAIT_MS = 1000;

function prehash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}
