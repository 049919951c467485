import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Comments on builds and their image attachments. A comment goes with its build (CASCADE); it
 * outlives its author (SET NULL), keeping the name and e-mail the author had when posting.
 */
export class Comments1700000002500 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'comments',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'author_id', type: 'integer', isNullable: true },
          { name: 'author_display_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'author_email', type: 'varchar', length: '320' },
          { name: 'body', type: 'text' },
          timestamp('created_at'),
        ],
        foreignKeys: [
          { columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
          { columnNames: ['author_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
        ],
        indices: [{ columnNames: ['build_id'] }, { columnNames: ['author_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'comment_attachments',
        columns: [
          idColumn(),
          { name: 'comment_id', type: 'integer' },
          { name: 'file_path', type: 'varchar', length: '300' },
          { name: 'mime', type: 'varchar', length: '50' },
          { name: 'size', type: 'integer' },
        ],
        foreignKeys: [
          { columnNames: ['comment_id'], referencedTableName: 'comments', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
        indices: [{ columnNames: ['comment_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('comment_attachments');
    await q.dropTable('comments');
  }
}
