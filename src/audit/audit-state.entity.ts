import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AuditHead } from './audit-head';

/**
 * The log's single row (id 1, created by the migration): the retention setting, the anchor left by
 * pruning, and the head (how many entries are kept, the newest one's id and hash) with its
 * signature (audit-head.ts). Appends lock this row, which makes them one line.
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

  /** How many entries the table holds (appends add, pruning subtracts). */
  @Column({ name: 'head_count', type: 'integer', default: 0 })
  headCount: number;

  @Column({ name: 'head_last_id', type: 'integer', nullable: true })
  headLastId: number | null;

  /** HMAC of the head and the anchor under a key outside the database; null until first signed. */
  @Column({ name: 'head_mac', type: 'varchar', length: 64, nullable: true })
  headMac: string | null;

  /** Which key signed it (AuditHeadKey.id). */
  @Column({ name: 'head_key_id', type: 'varchar', length: 16, nullable: true })
  headKeyId: string | null;
}

/** The signed part of the state row. */
export function headOf(state: AuditStateEntity): AuditHead {
  return { count: state.headCount, lastId: state.headLastId, hash: state.headHash, anchorId: state.anchorId, anchorHash: state.anchorHash };
}
