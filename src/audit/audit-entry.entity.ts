import { Column, Entity } from 'typeorm';
import { AuditRecordColumns } from './audit-record.columns';

/** One audit record, chained to the one before it by `prev_hash` (src/audit/audit-chain.ts). */
@Entity('audit_entries')
export class AuditEntryEntity extends AuditRecordColumns {
  @Column({ name: 'prev_hash', type: 'varchar', length: 64 })
  prevHash: string;

  @Column({ type: 'varchar', length: 64 })
  hash: string;
}
