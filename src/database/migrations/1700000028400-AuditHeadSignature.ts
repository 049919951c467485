import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Issue 36 item 6 (docs/audit.md "What the chain proves"): the audit log's head gets the entry
 * count, the newest id and a signature by a key outside the database. Left unsigned here (the
 * migration has no key): AuditHeadLegacy marks an existing log, which the relay signs at its next
 * start and records `audit.head_signed`.
 */
export class AuditHeadSignature1700000028400 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('audit_state', [
      new TableColumn({ name: 'head_count', type: 'integer', default: 0 }),
      new TableColumn({ name: 'head_last_id', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'head_mac', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'head_key_id', type: 'varchar', length: '16', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['head_key_id', 'head_mac', 'head_last_id', 'head_count']) await q.dropColumn('audit_state', name);
  }
}
