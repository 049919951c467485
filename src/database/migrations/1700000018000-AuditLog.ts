import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * The audit log (docs/audit.md): entries chained by SHA-256 and the log's one state row (retention,
 * the anchor left by pruning, the head). Entries name their actor without a foreign key, so a
 * record outlives the member it names.
 */
export class AuditLog1700000018000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'audit_entries',
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
          { name: 'prev_hash', type: 'varchar', length: '64' },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
        indices: [{ columnNames: ['at'] }, { columnNames: ['action'] }, { columnNames: ['actor_id'] }, { columnNames: ['target'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'audit_state',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'retention_days', type: 'integer', isNullable: true },
          { name: 'anchor_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'anchor_id', type: 'integer', isNullable: true },
          { name: 'head_hash', type: 'varchar', length: '64', isNullable: true },
        ],
      }),
    );
    await q.query('INSERT INTO audit_state (id) VALUES (1)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_state');
    await q.dropTable('audit_entries');
  }
}
