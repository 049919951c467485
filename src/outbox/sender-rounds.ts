import type { Logger } from '@nestjs/common';
import type { ClusterBus } from '../cluster/cluster-bus';

/**
 * The run loop every outbox sender shares (forge statuses, messages, tracker issues): one round at a
 * time, by one instance among several (`ClusterBus.exclusive`); a kick during a round makes it go
 * round once more, and concurrent kicks share the run. Once stopped it starts no round.
 */
export class SenderRounds {
  private running: Promise<void> | null = null;
  private again = false;
  private halted = false;

  constructor(
    private readonly bus: ClusterBus,
    /** The sender lock's name, how long an instance may hold it, and the name its errors are logged under. */
    private readonly lock: { name: string; ttlMs: number; label: string },
    private readonly round: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  get stopped(): boolean {
    return this.halted;
  }

  /** Runs rounds until nothing asked for another; resolves when the last has ended. */
  kick(): Promise<void> {
    if (this.halted) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.bus.exclusive(this.lock.name, this.lock.ttlMs, this.round);
        } while (this.again && !this.halted);
      } catch (err) {
        this.logger.error(`${this.lock.label}: ${(err as Error)?.stack ?? err}`);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Starts no more rounds and waits for the one under way. */
  async stop(): Promise<void> {
    this.halted = true;
    await this.running;
  }
}
