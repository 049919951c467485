import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/**
 * The issue's delivery step (the delivery itself is an outbox message, kind `tracker`): queued: to
 * create; attaching: created, evidence still to attach; filed: created with everything attached;
 * failed: given up (last_error says why).
 */
export type TrackerIssueStatus = 'queued' | 'attaching' | 'filed' | 'failed';

/**
 * One "Report issue" and the issue it became (migrations TrackerIssues, TrackerIssuesThroughOutbox):
 * its key, link and tracker status; the outbox message `{ issueId }` delivers it.
 */
@Entity('tracker_issues')
export class TrackerIssueEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  /** svc.config.json `trackers[].name`. */
  @Column({ type: 'varchar', length: 40 })
  tracker: string;

  /** Jira project key, Linear team id or GitHub owner/name, as configured when it was reported. */
  @Column({ type: 'varchar', length: 200 })
  project: string;

  @Column({ type: 'varchar', length: 250 })
  title: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'recording_id', type: 'integer', nullable: true })
  recordingId: number | null;

  @Column({ name: 'session_id', type: 'varchar', length: 200, nullable: true })
  sessionId: string | null;

  /** The clip's range in ms of the recording (null: its last 30 seconds). */
  @Column({ name: 'from_ms', type: 'integer', nullable: true })
  fromMs: number | null;

  @Column({ name: 'to_ms', type: 'integer', nullable: true })
  toMs: number | null;

  @Column({ name: 'reported_by', type: 'integer', nullable: true })
  reportedBy: number | null;

  @Column({ type: 'varchar', length: 12 })
  status: TrackerIssueStatus;

  /** The newest failed attempt's error (credentials redacted), shown on the build; cleared by a success. */
  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  /** The tracker's id of the issue (Jira key, Linear id, GitHub number), once created. */
  @Column({ name: 'external_id', type: 'varchar', length: 100, nullable: true })
  externalId: string | null;

  @Column({ name: 'external_url', type: 'varchar', length: 2048, nullable: true })
  externalUrl: string | null;

  /** The tracker's own status name (`To Do`, `In Progress`, `closed`), as its webhook last said. */
  @Column({ name: 'external_status', type: 'varchar', length: 100, nullable: true })
  externalStatus: string | null;

  @TimestampColumn({ name: 'closed_at', nullable: true })
  closedAt: Date | null;

  /** The build's review status when the issue was closed (`Rejected`: shown as closed while rejected). */
  @Column({ name: 'build_status_at_close', type: 'varchar', length: 40, nullable: true })
  buildStatusAtClose: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
