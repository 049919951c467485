import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { TokensRepository } from './tokens.repository';

/** How often recorded uses are written: GET /tokens on another instance may show a use this much later. */
export const LAST_USE_FLUSH_MS = 5_000;

/**
 * A PAT's `last_used_at`, recorded in memory during the request and written in batches (one
 * statement per flush, every LAST_USE_FLUSH_MS and at shutdown), so a read never waits on a write
 * (issue 42). This instance's GET /tokens reads through it, so it shows a use at once; a kill -9
 * loses at most the last interval's uses, never an answer the relay acknowledged.
 */
@Injectable()
export class TokenLastUse implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Tokens');
  private pending = new Map<number, number>();
  /** Uses being written: still shown until the write has ended. */
  private writing = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly tokens: TokensRepository) {
    this.timer = setInterval(() => void this.flush(), LAST_USE_FLUSH_MS);
    this.timer.unref();
  }

  record(tokenId: number, at: Date): void {
    this.pending.set(tokenId, at.getTime());
  }

  /** The last use recorded here and not yet stored, if any. */
  unstored(tokenId: number): Date | null {
    const at = this.pending.get(tokenId) ?? this.writing.get(tokenId);
    return at === undefined ? null : new Date(at);
  }

  /** Writes what is recorded; one flush at a time (a second waits for the first, then writes what came since). */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (!this.pending.size) return;
    this.inFlight = this.write();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = null;
    }
  }

  private async write(): Promise<void> {
    this.writing = this.pending;
    this.pending = new Map();
    try {
      await this.tokens.setLastUsed([...this.writing].map(([id, at]) => ({ id, at })));
    } catch (err) {
      // Kept for the next flush unless a later use replaced it meanwhile.
      for (const [id, at] of this.writing) if (!this.pending.has(id)) this.pending.set(id, at);
      this.logger.warn(`Recording tokens' last use failed (retried in ${LAST_USE_FLUSH_MS / 1000} s): ${(err as Error).message}`);
    } finally {
      this.writing = new Map();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
