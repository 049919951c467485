import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Testers per app and their links (issue 39 item 1, docs/integrations.md "Testers"):
 * - `app_testers`: people (no account needed) e-mailed when a build lands; gone with their app.
 * - `tester_links`: the share link each tester was sent per build, so removing a tester revokes
 *   them; one per tester and build (a notice is never sent twice for one build).
 * - `latest_build_links`: permanent revocable links to an app's (branch's) newest build.
 */
export class Testers1700000032100 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'app_testers',
        columns: [
          idColumn(),
          { name: 'app_id', type: 'integer' },
          { name: 'email', type: 'varchar', length: '320' },
          { name: 'name', type: 'varchar', length: '200', isNullable: true },
          { name: 'branches', type: 'text', isNullable: true },
          { name: 'only_done', type: 'boolean', default: false },
          { name: 'unsubscribe_hash', type: 'varchar', length: '64', isUnique: true },
          timestamp('unsubscribed_at', true),
          { name: 'last_refusal', type: 'varchar', length: '500', isNullable: true },
          timestamp('refused_at', true),
          timestamp('created_at'),
        ],
        uniques: [{ name: 'UQ_app_testers_app_email', columnNames: ['app_id', 'email'] }],
        foreignKeys: [{ columnNames: ['app_id'], referencedTableName: 'apps', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tester_links',
        columns: [idColumn(), { name: 'tester_id', type: 'integer' }, { name: 'build_id', type: 'integer' }, { name: 'share_link_id', type: 'integer' }],
        uniques: [{ name: 'UQ_tester_links_tester_build', columnNames: ['tester_id', 'build_id'] }],
        foreignKeys: [
          { columnNames: ['tester_id'], referencedTableName: 'app_testers', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
          { columnNames: ['share_link_id'], referencedTableName: 'build_share_links', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'latest_build_links',
        columns: [
          idColumn(),
          { name: 'app_id', type: 'integer' },
          { name: 'branch', type: 'varchar', length: '200', isNullable: true },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          timestamp('created_at'),
          timestamp('revoked_at', true),
        ],
        indices: [{ name: 'IDX_latest_build_links_app', columnNames: ['app_id'] }],
        foreignKeys: [{ columnNames: ['app_id'], referencedTableName: 'apps', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('latest_build_links');
    await q.dropTable('tester_links');
    await q.dropTable('app_testers');
  }
}
