import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../../common/clock';
import { redactSecrets } from '../../logging/mask-secrets';
import { OutboxService } from '../../outbox/outbox.service';
import { OutboxMessageFailedEvent, type OutboxSender } from '../../outbox/outbox-sender';
import { judgeFailure } from '../../outbox/retry-policy';
import { TrackerDirectory } from '../tracker-directory';
import type { TrackerIssueEntity } from '../tracker-issue.entity';
import { TrackerIssuesRepository } from '../tracker-issues.repository';
import { TrackerDelivery } from './tracker-delivery';

export const TRACKER_KIND = 'tracker';

/** The outbox message that delivers one reported issue: which `tracker_issues` row. */
export interface TrackerMessage {
  issueId: number;
}

/** Where the dashboard's outbox view groups an issue's delivery: one destination per configured tracker. */
export function trackerDestination(tracker: string): string {
  return `${TRACKER_KIND}:${tracker}`;
}

/**
 * Reported issues through the one outbox (docs/integrations.md "One delivery path"): the outbox
 * keeps the message `{ issueId }` and its retries; this sender does the issue's next step and
 * commits it before the following one (queued → attaching → filed), so a message sent again (a
 * retry, a kill -9 while in flight) resumes where the issue stands and never files a created issue
 * twice. A failed attempt's error is also kept on the issue for its build page; a final refusal,
 * or the outbox giving up, marks the issue failed.
 */
@Injectable()
export class TrackerOutboxSender implements OutboxSender, OnModuleInit {
  readonly kind = TRACKER_KIND;
  private readonly logger = new Logger('Trackers');

  constructor(
    private readonly outbox: OutboxService,
    private readonly directory: TrackerDirectory,
    private readonly issues: TrackerIssuesRepository,
    private readonly delivery: TrackerDelivery,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.outbox.register(this);
  }

  /** Queues the issue's delivery in the caller's transaction (the one that inserted the issue). */
  queue(issue: Pick<TrackerIssueEntity, 'id' | 'tracker'>): Promise<void> {
    const message: TrackerMessage = { issueId: issue.id };
    return this.outbox.enqueue(TRACKER_KIND, trackerDestination(issue.tracker), message);
  }

  async send(payload: unknown, message: { attempts: number }): Promise<void> {
    let issue = await this.issues.byId((payload as TrackerMessage).issueId);
    // Filed or given up already: a message sent again after a kill -9 has nothing left to do.
    if (!issue || (issue.status !== 'queued' && issue.status !== 'attaching')) return;
    try {
      if (issue.status === 'queued') {
        const created = await this.delivery.createIssue(issue);
        const change = { status: 'attaching' as const, lastError: null, externalId: created.externalId, externalUrl: created.url, externalStatus: created.status, updatedAt: this.clock.now() };
        // Committed before attaching: from here on a retry attaches to this issue, never files a second one.
        await this.issues.settle(issue.id, ['queued'], change);
        issue = { ...issue, ...change };
      }
      await this.delivery.attach(issue);
      await this.issues.settle(issue.id, ['attaching'], { status: 'filed', lastError: null, updatedAt: this.clock.now() });
    } catch (err) {
      // The outbox keeps the same words (its retry policy's) as the destination's last error.
      const verdict = judgeFailure(err, message.attempts + 1, this.clock.nowMs());
      const error = redactSecrets(this.redact(verdict.error)).slice(0, 500);
      // A final refusal fails the issue here, committed before the outbox settles the message (no event to lose).
      await this.issues.settle(issue.id, [issue.status], { status: verdict.retryAfterMs === null ? 'failed' : issue.status, lastError: error, updatedAt: this.clock.now() });
      throw err;
    }
  }

  redact(text: string): string {
    return this.directory.redact(text);
  }

  /** The outbox gave the issue's delivery up after 3 days of failures: the issue is failed. Never throws. */
  @OnEvent(OutboxMessageFailedEvent.eventName, { async: true })
  async failed(event: OutboxMessageFailedEvent): Promise<void> {
    if (event.kind !== TRACKER_KIND) return;
    try {
      await this.issues.settle((event.payload as TrackerMessage).issueId, ['queued', 'attaching'], { status: 'failed', lastError: event.error, updatedAt: this.clock.now() });
    } catch (err) {
      this.logger.error(`Tracker issue not marked failed: ${(err as Error)?.stack ?? err}`);
    }
  }
}
