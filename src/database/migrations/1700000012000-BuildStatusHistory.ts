import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Who changed a build's review status, from what, to what, when; the first row of each build is
 * its status at upload (from NULL). A row goes with its build (CASCADE) and outlives its author
 * (SET NULL), keeping the name and e-mail the author had.
 */
export class BuildStatusHistory1700000012000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_status_changes',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'from_status', type: 'varchar', length: '20', isNullable: true },
          { name: 'to_status', type: 'varchar', length: '20', isNullable: true },
          { name: 'changed_by_id', type: 'integer', isNullable: true },
          { name: 'changed_by_display_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'changed_by_email', type: 'varchar', length: '320' },
          timestamp('changed_at'),
        ],
        foreignKeys: [
          { columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
          { columnNames: ['changed_by_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
        ],
        indices: [{ columnNames: ['build_id'] }, { columnNames: ['changed_by_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('build_status_changes');
  }
}
