import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** What a commit status says, in the relay's words; each forge client spells it its own way (GitLab: running, failed). */
export type StatusState = 'pending' | 'success' | 'failure';
/** queued: to send (at next_attempt_at); delivered; superseded by a newer status of its key; failed: refused for good. */
export type OutboxStatus = 'queued' | 'delivered' | 'superseded' | 'failed';

/** One status the relay means to post (migration ForgeOutbox). */
@Entity('forge_status_outbox')
export class ForgeStatusEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  repository: string;

  @Column({ name: 'commit_sha', type: 'varchar', length: 64 })
  commit: string;

  @Column({ type: 'varchar', length: 120 })
  context: string;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ type: 'varchar', length: 10 })
  state: StatusState;

  @Column({ type: 'varchar', length: 300 })
  description: string;

  @Column({ name: 'target_url', type: 'varchar', length: 2048, nullable: true })
  targetUrl: string | null;

  /** Markdown for a GitHub App's check run. */
  @Column({ type: 'text', nullable: true })
  summary: string | null;

  /** `svc/release-gate` only: the versions of the builds' gates it was made from, `{"<build id>": version}` as JSON. */
  @Column({ name: 'gate_versions', type: 'text', nullable: true })
  gateVersions: string | null;

  @Column({ type: 'varchar', length: 12 })
  status: OutboxStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @TimestampColumn({ name: 'next_attempt_at' })
  nextAttemptAt: Date;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;
}

/** One attempt to post a status (the forge's delivery log). */
@Entity('forge_deliveries')
export class ForgeDeliveryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'outbox_id', type: 'integer' })
  outboxId: number;

  /** `github https://api.github.com` — which configured forge, without credentials. */
  @Column({ type: 'varchar', length: 300 })
  forge: string;

  /** `config:<index>` or `dashboard:<id>`: whose delivery log the attempt is in (null before migration DashboardForges). */
  @Column({ name: 'forge_key', type: 'varchar', length: 40, nullable: true })
  forgeKey: string | null;

  @TimestampColumn({ name: 'attempted_at' })
  attemptedAt: Date;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;
}

/** How far the status history has been read into the outbox. */
@Entity('forge_feed')
export class ForgeFeedEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  name: string;

  @Column({ name: 'last_id', type: 'integer' })
  lastId: number;
}
