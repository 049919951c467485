import { Column, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/**
 * The columns every audit record has, chained (audit_entries) or waiting to be (audit_pending): who
 * did what to what, when, from where. Each table's entity adds its own.
 */
export abstract class AuditRecordColumns {
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
}

/** A record's fields before it has a row: what the relay writes, `details` already made safe. */
export type AuditRecordFields = Omit<AuditRecordColumns, 'id'>;
