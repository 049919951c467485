import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * One comment per pull request (issue 25, docs/integrations.md "The pull-request comment"): the
 * forge's comment id once created (then edited in place), the install links made for its builds
 * (a share link's token is kept nowhere else: it is shown in the comment), and the queue state of
 * its next edit. `version` counts the changes asked for, so an edit that read an older one is sent again.
 */
export class ForgePullRequests1700000025200 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'forge_pull_requests',
        columns: [
          idColumn(),
          { name: 'repository', type: 'varchar', length: '200' },
          { name: 'number', type: 'integer' },
          { name: 'comment_id', type: 'varchar', length: '40', isNullable: true },
          { name: 'install_links', type: 'text' },
          { name: 'status', type: 'varchar', length: '12' },
          { name: 'version', type: 'integer', default: 1 },
          { name: 'attempts', type: 'integer', default: 0 },
          timestamp('next_attempt_at'),
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
        ],
        uniques: [{ name: 'UQ_forge_pull_requests', columnNames: ['repository', 'number'] }],
        indices: [{ name: 'IDX_forge_pull_requests_due', columnNames: ['status', 'next_attempt_at'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('forge_pull_requests');
  }
}
