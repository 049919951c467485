import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Share links (docs/builds.md "Share links"): one row per link, the token only as its SHA-256. A
 * deleted or purged build sets `build_id` to NULL rather than removing the row, so its link keeps
 * answering 410 ("the build was deleted") instead of 404; the creator's name is kept beside the id
 * (SET NULL when the member is removed), as the status history does.
 */
export class BuildShareLinks1700000017700 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_share_links',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer', isNullable: true },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'created_by_id', type: 'integer', isNullable: true },
          { name: 'created_by_name', type: 'varchar', length: '320' },
          timestamp('created_at'),
          timestamp('expires_at'),
          timestamp('revoked_at', true),
          { name: 'downloads', type: 'integer', default: 0 },
        ],
        foreignKeys: [
          { columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
          { columnNames: ['created_by_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' },
        ],
        indices: [{ columnNames: ['build_id'] }, { columnNames: ['created_by_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('build_share_links');
  }
}
