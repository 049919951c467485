import { Injectable } from '@nestjs/common';
import * as bcrypt from 'bcrypt';
import { createHash, randomBytes } from 'node:crypto';
import { RelayConfig } from '../config/relay-config';

/**
 * bcrypt silently ignores input past 72 bytes, so a long password would sign in with only its
 * first 72 bytes. Every password is first reduced to base64(SHA-256(password)) (44 ASCII bytes,
 * no NUL), so all of it counts. Hashing runs in libuv's thread pool (async bcrypt).
 */
@Injectable()
export class PasswordHasher {
  /**
   * A hash of a random password, compared against when the e-mail is unknown (equal timing).
   * Computed at start-up so even the first unknown e-mail costs one comparison, not a hash too.
   */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly config: RelayConfig) {
    this.decoyHash = this.hash(randomBytes(16).toString('hex'));
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(prehash(password), this.config.bcryptCost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(prehash(password), hash);
  }

  /** Spends the same work as verify() for a login whose e-mail matched nobody. */
  async verifyDecoy(password: string): Promise<false> {
    await bcrypt.compare(prehash(password), await this.decoyHash);
    return false;
  }
}

function prehash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}
