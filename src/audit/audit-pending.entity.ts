import { Column, Entity } from 'typeorm';
import { AuditRecordColumns } from './audit-record.columns';

/**
 * An entry written inside another transaction (an upload's), committed with its work and waiting for
 * the log's writer to chain it into audit_entries (docs/audit.md).
 */
@Entity('audit_pending')
export class AuditPendingEntity extends AuditRecordColumns {
  /** HMAC-SHA256 of the row with the audit head key (audit-head.ts signPending): only the relay's rows are chained. */
  @Column({ type: 'varchar', length: 64 })
  mac: string;
}
