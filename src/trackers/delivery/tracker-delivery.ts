import { Injectable } from '@nestjs/common';
import { OutboundRefusal } from '../../outbox/retry-policy';
import type { CreatedIssue } from '../clients/tracker-client';
import { IssueEvidence } from '../evidence/issue-evidence';
import { TrackerDirectory } from '../tracker-directory';
import type { TrackerIssueEntity } from '../tracker-issue.entity';

/** A tracker named by a row that is no longer configured, or not usable: final, never retried. */
export class TrackerUnavailable extends OutboundRefusal {
  constructor(message: string) {
    super(0, new Headers(), message, false);
  }
}

/**
 * The tracker-specific half of delivering a reported issue: building each request and reading its
 * answer. The outbox (TrackerOutboxSender, OutboxWorker) owns the other half: when, how often,
 * which step.
 */
@Injectable()
export class TrackerDelivery {
  constructor(
    private readonly directory: TrackerDirectory,
    private readonly evidence: IssueEvidence,
  ) {}

  /** Files the issue; throws what its client throws (ForgeRefusal for a refusal). */
  createIssue(job: TrackerIssueEntity): Promise<CreatedIssue> {
    const { tracker, client } = this.clientOf(job);
    return client.createIssue({ project: job.project, title: job.title, paragraphs: job.description.split('\n\n'), issueType: tracker.issueType });
  }

  /** Cuts the evidence and attaches it to the created issue (with a note of anything left out). */
  async attach(job: TrackerIssueEntity): Promise<void> {
    const { client } = this.clientOf(job);
    if (!job.externalId) throw new Error(`issue #${job.id} has no tracker id to attach to`);
    const gathered = await this.evidence.gather(job);
    try {
      await client.attach({ externalId: job.externalId, url: job.externalUrl ?? '', status: job.externalStatus }, gathered.files, gathered.notes.join('\n'));
    } finally {
      await gathered.cleanup();
    }
  }

  private clientOf(job: TrackerIssueEntity) {
    const entry = this.directory.find(job.tracker);
    if (!entry) throw new TrackerUnavailable(`tracker "${job.tracker}" is no longer configured`);
    if (!entry.client) throw new TrackerUnavailable(`tracker "${job.tracker}" is not used: ${entry.problem}`);
    return { tracker: entry.tracker, client: entry.client };
  }
}
