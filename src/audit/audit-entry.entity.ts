import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/** One audit record, chained to the one before it by `prev_hash` (src/audit/audit-chain.ts). */
@Entity('audit_entries')
export class AuditEntryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @TimestampColumn()
  at: Date;

  /** No foreign key: the record outlives the member. */
  @Column({ name: 'actor_id', type: 'integer', nullable: true })
  actorId: number | null;

  @Column({ name: 'actor_label', type: 'varchar', length: 320 })
  actorLabel: string;

  @Column({ type: 'varchar', length: 16 })
  via: string;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  target: string | null;

  @Column({ name: 'client_address', type: 'varchar', length: 64, nullable: true })
  clientAddress: string | null;

  /** JSON text of a flat object (never a secret). */
  @Column({ type: 'text' })
  details: string;

  @Column({ name: 'prev_hash', type: 'varchar', length: 64 })
  prevHash: string;

  @Column({ type: 'varchar', length: 64 })
  hash: string;
}
