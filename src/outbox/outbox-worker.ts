import { SenderRounds } from './sender-rounds';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ClusterBus } from '../cluster/cluster-bus';
import { Clock } from '../common/clock';
import { TransactionRunner } from '../database/transaction-runner';
import { redactSecrets } from '../logging/mask-secrets';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { OutboxRepository, type OutboxRow } from './outbox.repository';
import { OutboxMessageFailedEvent, type OutboxSender } from './outbox-sender';
import { GIVE_UP_AFTER_MS, judgeFailure } from './retry-policy';

/** How often due messages are looked for while any is queued (retries come due by the relay's clock). */
export const OUTBOX_POLL_MS = 1000;
const BATCH = 20;
/** Longer than a round normally takes; a dead holder blocks other instances this long at most. */
const SENDER_LOCK_MS = 5 * 60_000;

/**
 * Sends the outbox's queued messages oldest first, one at a time, exactly as the forge outbox sends
 * statuses: a failure the retry policy calls transient is tried again at its time (backoff,
 * Retry-After), a final one marks the message failed (and tells its module). A message whose
 * request was in flight at a kill -9 is still queued and is sent again after the restart: senders
 * are at-least-once (Slack updates in place, mail may arrive twice in that one case).
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  private readonly senders = new Map<string, OutboxSender>();
  private timer: NodeJS.Timeout | null = null;
  private readonly rounds: SenderRounds;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly transactions: TransactionRunner,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {
    // One sender among several instances (docs/scaling.md): the others skip the round.
    this.rounds = new SenderRounds(this.bus, { name: 'outbox', ttlMs: SENDER_LOCK_MS, label: 'Outbox' }, () => this.deliverDue(), this.logger);
  }

  register(sender: OutboxSender): void {
    this.senders.set(sender.kind, sender);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Messages left queued by the previous run (a kill -9 included) start the rounds at once.
    if (await this.outbox.anyQueued()) this.start();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.rounds.stop();
  }

  /** Starts the rounds (once) and sends what is due, after the caller's transaction commits. */
  nudgeAfterCommit(): void {
    void this.transactions.afterCommit(() => {
      this.start();
    });
  }

  private start(): void {
    if (this.rounds.stopped) return;
    if (!this.timer) {
      this.timer = setInterval(() => void this.kick(), OUTBOX_POLL_MS);
      this.timer.unref();
    }
    void this.kick();
  }

  /** Sends what is due now; resolves when nothing is due (a call during a run makes it go round again). */
  kick(): Promise<void> {
    if (this.rounds.stopped) return Promise.resolve();
    return this.rounds.kick();
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const rows = await this.outbox.due(this.clock.nowMs(), BATCH);
      if (!rows.length || this.rounds.stopped) return;
      for (const row of rows) {
        if (this.rounds.stopped) return;
        await this.deliver(row);
      }
    }
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const sender = this.senders.get(row.kind);
    const attempts = row.attempts + 1;
    const attemptedAt = this.clock.nowMs();
    const settled = { attempts, lastAttemptAt: attemptedAt, nextAttemptAt: attemptedAt, deliveredAt: null };
    if (!sender) {
      return this.outbox.settle(row.id, { ...settled, status: 'failed', lastError: `nothing in this relay sends "${row.kind}" messages` });
    }
    const payload = JSON.parse(row.payload) as unknown;
    try {
      await sender.send(payload, { id: row.id, attempts: row.attempts });
      await this.outbox.settle(row.id, { ...settled, status: 'delivered', lastError: null, deliveredAt: this.clock.nowMs() });
    } catch (err) {
      const verdict = judgeFailure(err, attempts, this.clock.nowMs());
      const error = redactSecrets(sender.redact(verdict.error)).slice(0, 500);
      const giveUp = verdict.retryAfterMs === null || this.clock.nowMs() + verdict.retryAfterMs - row.createdAt > GIVE_UP_AFTER_MS;
      if (giveUp) {
        this.logger.warn(`Outbox message #${row.id} (${row.kind} to ${row.destination}) not delivered: ${error}`);
        await this.outbox.settle(row.id, { ...settled, status: 'failed', lastError: error });
        this.events.emit(OutboxMessageFailedEvent.eventName, new OutboxMessageFailedEvent(row.kind, row.destination, payload, error));
        return;
      }
      await this.outbox.settle(row.id, { ...settled, status: 'queued', lastError: error, nextAttemptAt: this.clock.nowMs() + verdict.retryAfterMs! });
    }
  }
}
