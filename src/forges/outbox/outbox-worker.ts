import { SenderRounds } from '../../outbox/sender-rounds';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ClusterBus } from '../../cluster/cluster-bus';
import { Clock } from '../../common/clock';
import { ForgeStatusFeed } from '../status/status-feed';
import { ForgeDirectory } from '../forge-directory';
import { PullRequestComments } from '../pull-requests/pull-request-comments.service';
import { ForgeOutboxRepository } from './forge-outbox.repository';
import type { ForgeStatusEntity } from './forge-status.entity';
import { GIVE_UP_AFTER_MS, judgeFailure } from '../../outbox/retry-policy';

/** How often due statuses are looked for (retries come due by the relay's clock). */
export const OUTBOX_POLL_MS = 1000;
const BATCH = 20;
/** Longer than a round normally takes (each request is at most 10 s); a dead holder blocks others this long at most. */
const SENDER_LOCK_MS = 5 * 60_000;

/**
 * Sends the outbox's queued statuses (docs/integrations.md "Delivered like money"), oldest first,
 * one at a time: a status overtaken by a newer one of its key is superseded, never sent; a failure
 * the retry policy calls transient is tried again at its time; a final one is marked failed. Every
 * attempt goes into the delivery log. The verdict never waits for any of this.
 */
@Injectable()
export class ForgeOutboxWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Forges');
  private timer: NodeJS.Timeout | null = null;
  private readonly rounds: SenderRounds;

  constructor(
    private readonly directory: ForgeDirectory,
    private readonly outbox: ForgeOutboxRepository,
    private readonly comments: PullRequestComments,
    private readonly feed: ForgeStatusFeed,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
  ) {
    // One sender among several instances (docs/scaling.md): the others skip the round.
    this.rounds = new SenderRounds(this.bus, { name: 'forge-outbox', ttlMs: SENDER_LOCK_MS, label: 'Forge outbox' }, () => this.deliverDue(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  /** Starts the rounds once there is a forge (at start-up, or when the first one is added in the dashboard). */
  start(): void {
    if (this.timer || this.rounds.stopped || !this.directory.any) return;
    // The feed too: with several instances a nudge may find another instance reading it, which may
    // have just missed the change; the next tick reads it (one primary-key probe a second).
    this.timer = setInterval(() => void this.feed.catchUp().then(() => this.kick()), OUTBOX_POLL_MS);
    this.timer.unref();
    this.kick();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.rounds.stop();
  }

  /** Sends what is due now; resolves when the outbox has nothing due (a call during a run makes it go round again). */
  kick(): Promise<void> {
    if (this.rounds.stopped || !this.directory.any) return Promise.resolve();
    return this.rounds.kick();
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const rows = await this.outbox.due(this.clock.now(), BATCH);
      if (!rows.length || this.rounds.stopped) return this.comments.writeDue(() => this.rounds.stopped);
      for (const row of rows) {
        if (this.rounds.stopped) return;
        await this.deliver(row);
      }
    }
  }

  private async deliver(row: ForgeStatusEntity): Promise<void> {
    if (await this.outbox.isOvertaken(row)) return this.outbox.settle(row.id, { status: 'superseded' });
    const entry = this.directory.forRepository(row.repository);
    if (!entry?.client) {
      const why = entry ? `forge not used: ${entry.problem}` : 'no configured forge lists this repository';
      return this.outbox.settle(row.id, { status: 'failed', lastError: why });
    }
    const started = performance.now();
    const attemptedAt = this.clock.now();
    const attempts = row.attempts + 1;
    try {
      await entry.client.post(row);
      await this.outbox.logAttempt({ outboxId: row.id, forge: entry.label, forgeKey: entry.key, attemptedAt, statusCode: 200, error: null, durationMs: Math.round(performance.now() - started) });
      await this.outbox.settle(row.id, { status: 'delivered', attempts, deliveredAt: this.clock.now(), lastError: null });
    } catch (err) {
      const verdict = judgeFailure(err, attempts, this.clock.nowMs());
      const error = verdict.error.slice(0, 500);
      await this.outbox.logAttempt({ outboxId: row.id, forge: entry.label, forgeKey: entry.key, attemptedAt, statusCode: verdict.statusCode, error, durationMs: Math.round(performance.now() - started) });
      const giveUp = verdict.retryAfterMs === null || this.clock.nowMs() + verdict.retryAfterMs - row.createdAt.getTime() > GIVE_UP_AFTER_MS;
      if (giveUp) {
        this.logger.warn(`Forge status #${row.id} (${row.repository}@${row.commit.slice(0, 7)} ${row.context}) not delivered: ${error}`);
        return this.outbox.settle(row.id, { status: 'failed', attempts, lastError: error });
      }
      await this.outbox.settle(row.id, { attempts, lastError: error, nextAttemptAt: new Date(this.clock.nowMs() + verdict.retryAfterMs!) });
    }
  }
}
