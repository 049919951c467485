import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The log's single row (id 1, created by the migration): the retention setting, the anchor left by
 * pruning, and the head (the newest entry's hash). Appends lock this row, which makes them one line.
 */
@Entity('audit_state')
export class AuditStateEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  /** Entries older than this many days are pruned; null keeps everything. */
  @Column({ name: 'retention_days', type: 'integer', nullable: true })
  retentionDays: number | null;

  /** The hash of the last pruned entry (the first kept entry's prev_hash), or null before any prune. */
  @Column({ name: 'anchor_hash', type: 'varchar', length: 64, nullable: true })
  anchorHash: string | null;

  @Column({ name: 'anchor_id', type: 'integer', nullable: true })
  anchorId: number | null;

  /** The hash of the newest entry, or null while the log is empty. */
  @Column({ name: 'head_hash', type: 'varchar', length: 64, nullable: true })
  headHash: string | null;
}
