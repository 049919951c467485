import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * The release gate (issue 38, docs/release-gate.md): members' reviews of builds (one current per
 * member and build), the policies set in the dashboard, and each build's evaluated gate.
 */
export class ReleaseGate1700000030000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_reviews',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'reviewer_id', type: 'integer', isNullable: true },
          { name: 'reviewer_email', type: 'varchar', length: '320' },
          { name: 'reviewer_display_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'reviewer_role', type: 'varchar', length: '20' },
          { name: 'verdict', type: 'varchar', length: '20' },
          { name: 'comment', type: 'text', isNullable: true },
          timestamp('created_at'),
          { name: 'carried_from_build_id', type: 'integer', isNullable: true },
          { name: 'carried_reason', type: 'varchar', length: '300', isNullable: true },
        ],
        indices: [{ name: 'UQ_build_reviews_member', columnNames: ['build_id', 'reviewer_id'], isUnique: true }],
        foreignKeys: [
          { columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
          { columnNames: ['reviewer_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'release_gate_policies',
        columns: [
          { name: 'scope', type: 'varchar', length: '40', isPrimary: true },
          { name: 'policy', type: 'text' },
          timestamp('updated_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'release_gate_states',
        columns: [
          { name: 'build_id', type: 'integer', isPrimary: true },
          { name: 'state', type: 'varchar', length: '10' },
          { name: 'checklist', type: 'text' },
          { name: 'file_sha256', type: 'varchar', length: '64', isNullable: true },
          { name: 'unpublished', type: 'integer', default: 0 },
          timestamp('evaluated_at'),
        ],
        indices: [{ name: 'IDX_release_gate_states_state', columnNames: ['state'] }],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['release_gate_states', 'release_gate_policies', 'build_reviews']) await q.dropTable(name);
  }
}
