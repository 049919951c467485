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
   * Compared against when the e-mail is unknown, so that sign-in costs one comparison at the
   * configured cost like a known e-mail's (equal timing); never matches (see decoyHash()).
   */
  readonly decoyHash: string;

  constructor(private readonly config: RelayConfig) {
    this.workers = new PasswordWorkers(config.passwordWorkers);
    this.decoyHash = decoyHash(config.bcryptCost);
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
    await this.workers.compare(prehash(password), this.decoyHash);
    return false;
  }

  onModuleDestroy(): Promise<void> {
    return this.workers.close();
  }
}

const MAX_QUEUE_WAIT_MS = 1000;

/**
 * A well-formed bcrypt hash at `cost` with a random salt and a random digest: comparing against it
 * costs exactly what comparing against a real hash at that cost does (bcrypt's work depends only on
 * the cost), and no password yields that digest but by chance (2^-184). Written, not hashed: hashing
 * one at start-up took a worker thread (~10 MB, the start-up's RSS peak) and ~0.1 s of CPU (cost 11)
 * before the relay was ready (docs/decisions.md#decoy-hash).
 */
export function decoyHash(cost: number): string {
  return `$2b$${String(cost).padStart(2, '0')}$${bcryptBase64(randomBytes(16))}${bcryptBase64(randomBytes(23))}`;
}

/** bcrypt's base64: its own alphabet, no padding (16 bytes → 22 characters, 23 → 31). */
function bcryptBase64(bytes: Buffer): string {
  const standard = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const bcrypt = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (const char of bytes.toString('base64').replace(/=+$/, '')) out += bcrypt[standard.indexOf(char)];
  return out;
}

function prehash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}
