import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../common/time';
import type { TrackerIssueEntity } from './tracker-issue.entity';

/** One issue reported from a build, as GET /builds/:id/issues shows it. */
export class BuildIssue {
  @ApiProperty()
  id: number;
  @ApiProperty({ example: 'jira' })
  tracker: string;
  @ApiProperty({ example: 'Checkout button does nothing on the second tap' })
  title: string;
  @ApiProperty({
    enum: ['queued', 'attaching', 'filed', 'failed'],
    description: 'queued: being filed; attaching: filed, evidence being attached; filed: done; failed: given up (see lastError)',
  })
  delivery: string;
  @ApiProperty({ type: String, nullable: true, example: 'MOB-12', description: 'the tracker\'s id (Jira key, Linear id, GitHub owner/name#number)' })
  key: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'https://acme.atlassian.net/browse/MOB-12' })
  url: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'In Progress', description: 'the tracker\'s status name, as its webhook last said' })
  status: string | null;
  @ApiProperty({ description: 'closed in the tracker (done, cancelled)' })
  closed: boolean;
  @ApiProperty({ description: 'closed while the build was Rejected' })
  closedWhileRejected: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'why the last attempt failed (credentials redacted)' })
  lastError: string | null;
  @ApiProperty({ type: Number, nullable: true })
  recordingId: number | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export function toBuildIssue(row: TrackerIssueEntity): BuildIssue {
  return {
    id: row.id,
    tracker: row.tracker,
    title: row.title,
    delivery: row.status,
    key: row.externalId,
    url: row.externalUrl,
    status: row.externalStatus,
    closed: row.closedAt !== null,
    closedWhileRejected: row.closedAt !== null && row.buildStatusAtClose === 'Rejected',
    lastError: row.lastError,
    recordingId: row.recordingId,
    createdAt: isoWithMillis(row.createdAt),
  };
}

/** GET /builds/:id/issues: the build's issues and the trackers a new one may go to. */
export class BuildIssues {
  @ApiProperty({ type: [String], example: ['jira'], description: 'the usable trackers of svc.config.json, by name' })
  trackers: string[];
  @ApiProperty({ type: [BuildIssue], description: 'newest first' })
  items: BuildIssue[];
}

/** A tracker's verified webhook: how many of the build issues it named were updated (0 for an event about anything else). */
export class WebhookReceived {
  @ApiProperty({ example: 1 })
  applied: number;
}
