import { SenderRounds } from '../../outbox/sender-rounds';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ClusterBus } from '../../cluster/cluster-bus';
import { Clock } from '../../common/clock';
import { GIVE_UP_AFTER_MS, judgeFailure } from '../../outbox/retry-policy';
import { TrackerDirectory } from '../tracker-directory';
import type { TrackerIssueEntity } from '../tracker-issue.entity';
import { TrackerIssuesRepository } from '../tracker-issues.repository';
import { TrackerDelivery, TrackerUnavailable } from './tracker-delivery';

/** How often due issues are looked for (retries come due by the relay's clock). */
export const TRACKER_OUTBOX_POLL_MS = 1000;
const BATCH = 10;
/** Longer than a round normally takes; a dead holder blocks others this long at most. */
const SENDER_LOCK_MS = 10 * 60_000;

/**
 * Files reported issues from `tracker_issues` the way the forge outbox posts statuses
 * (docs/integrations.md "Delivered like money"): oldest first, one at a time, each step's outcome
 * committed before the next (queued → attaching → filed), so a kill -9 resumes where it stopped; a
 * failure the forges' retry policy calls transient comes due again with backoff, a final one is
 * kept as failed with its (redacted) error. One sender among instances.
 */
@Injectable()
export class TrackerOutboxWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Trackers');
  private timer: NodeJS.Timeout | null = null;
  private readonly rounds: SenderRounds;

  constructor(
    private readonly directory: TrackerDirectory,
    private readonly issues: TrackerIssuesRepository,
    private readonly delivery: TrackerDelivery,
    private readonly bus: ClusterBus,
    private readonly clock: Clock,
  ) {
    // One sender among several instances (docs/scaling.md): the others skip the round.
    this.rounds = new SenderRounds(this.bus, { name: 'tracker-outbox', ttlMs: SENDER_LOCK_MS, label: 'Tracker outbox' }, () => this.deliverDue(), this.logger);
  }

  onApplicationBootstrap(): void {
    if (!this.directory.any) return;
    this.timer = setInterval(() => void this.kick(), TRACKER_OUTBOX_POLL_MS);
    this.timer.unref();
    void this.kick();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.rounds.stop();
  }

  /** Files what is due now; resolves when nothing is due (a call during a run makes it go round again). */
  kick(): Promise<void> {
    if (this.rounds.stopped || !this.directory.any) return Promise.resolve();
    return this.rounds.kick();
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const rows = await this.issues.due(this.clock.now(), BATCH);
      if (!rows.length || this.rounds.stopped) return;
      for (const row of rows) {
        if (this.rounds.stopped) return;
        await this.step(row);
      }
    }
  }

  /** One step of one issue: create it, or attach its evidence. */
  private async step(row: TrackerIssueEntity): Promise<void> {
    const attempts = row.attempts + 1;
    try {
      if (row.status === 'queued') {
        const created = await this.delivery.createIssue(row);
        const now = this.clock.now();
        // Committed before attaching: a crash from here on attaches to this issue, never files a second one.
        await this.issues.settle(row.id, ['queued'], {
          status: 'attaching',
          attempts: 0,
          nextAttemptAt: now,
          lastError: null,
          externalId: created.externalId,
          externalUrl: created.url,
          externalStatus: created.status,
          updatedAt: now,
        });
      } else {
        await this.delivery.attach(row);
        await this.issues.settle(row.id, ['attaching'], { status: 'filed', attempts, lastError: null, updatedAt: this.clock.now() });
      }
    } catch (err) {
      const verdict =
        err instanceof TrackerUnavailable ? { statusCode: null, error: err.message, retryAfterMs: null } : judgeFailure(err, attempts, this.clock.nowMs());
      const error = verdict.error.slice(0, 500);
      const now = this.clock.now();
      const giveUp = verdict.retryAfterMs === null || now.getTime() + verdict.retryAfterMs - row.createdAt.getTime() > GIVE_UP_AFTER_MS;
      if (giveUp) {
        this.logger.warn(`Issue #${row.id} for build ${row.buildId} (${row.tracker}) not ${row.status === 'queued' ? 'filed' : 'given its evidence'}: ${error}`);
        return this.issues.settle(row.id, [row.status], { status: 'failed', attempts, lastError: error, updatedAt: now });
      }
      await this.issues.settle(row.id, [row.status], { attempts, lastError: error, nextAttemptAt: new Date(now.getTime() + verdict.retryAfterMs!), updatedAt: now });
    }
  }
}
