import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Audit entries written inside another transaction (an upload's, with its build) wait here, committed
 * with that transaction's work, until the audit log's one writer chains them into audit_entries
 * (docs/audit.md "How an entry is made"): the transaction no longer holds the chain's state row
 * through its own commit. The columns are audit_entries' without the chain, and `mac`: the relay's
 * HMAC of the row with the head key, so a row written into the database by anyone else is not chained.
 */
export class AuditPending1700000041000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'audit_pending',
        columns: [
          idColumn(),
          timestamp('at'),
          { name: 'actor_id', type: 'integer', isNullable: true },
          { name: 'actor_label', type: 'varchar', length: '320' },
          { name: 'via', type: 'varchar', length: '16' },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'target', type: 'varchar', length: '200', isNullable: true },
          { name: 'client_address', type: 'varchar', length: '64', isNullable: true },
          { name: 'details', type: 'text' },
          { name: 'mac', type: 'varchar', length: '64' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_pending');
  }
}
