import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/** queued: to send (at next_attempt_at); delivered; failed: refused for good (or given up). */
export type OutboxMessageStatus = 'queued' | 'delivered' | 'failed';

/**
 * One outgoing call the relay means to make (migration Outbox): an e-mail, a Slack or Teams notice,
 * a tracker issue. Committed before it is sent, so a kill -9 loses none; sent by OutboxWorker.
 * Forge statuses keep their own table (forge_status_outbox: one row per commit status, superseded
 * by key) and the same retry policy and SSRF-pinned fetch.
 */
@Entity('outbox_messages')
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** Which sender delivers it (`mail`, `slack`, `teams`, `jira`…). */
  @Column({ type: 'varchar', length: 20 })
  kind: string;

  /** The destination it goes to, as the dashboard groups it (`mail`, `slack:C123`, `teams:3`); no credential. */
  @Column({ type: 'varchar', length: 120 })
  destination: string;

  /** The sender's input, JSON. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 12 })
  status: OutboxMessageStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @TimestampColumn({ name: 'next_attempt_at' })
  nextAttemptAt: Date;

  /** Redacted of every configured credential. */
  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @TimestampColumn({ name: 'last_attempt_at', nullable: true })
  lastAttemptAt: Date | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;
}
