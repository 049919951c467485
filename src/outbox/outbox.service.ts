import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { OutboxRepository } from './outbox.repository';
import type { OutboxSender } from './outbox-sender';
import { OutboxWorker } from './outbox-worker';

/** The one delivery path (docs/integrations.md "One delivery path"): what a feature calls to send something. */
@Injectable()
export class OutboxService {
  constructor(
    private readonly repository: OutboxRepository,
    private readonly worker: OutboxWorker,
    private readonly clock: Clock,
  ) {}

  /** A feature's module registers its sender at start-up (onModuleInit). */
  register(sender: OutboxSender): void {
    this.worker.register(sender);
  }

  /**
   * Queues a message in the caller's transaction (so it commits with its cause and survives a
   * kill -9 right after) and wakes the sender once it has committed.
   */
  async enqueue(kind: string, destination: string, payload: unknown): Promise<void> {
    await this.repository.insert({ kind, destination, payload: JSON.stringify(payload), now: this.clock.nowMs() });
    this.worker.nudgeAfterCommit();
  }
}
