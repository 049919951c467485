import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * "Report issue" (issue 39, docs/integrations.md "Issue trackers"): `tracker_issues` is both the
 * outbox that files each issue (status queued → attaching → filed, retried with backoff like the
 * forges' statuses, so a kill -9 loses nothing) and the issue's link and status shown on its build.
 * No foreign key to builds: an issue stays in its tracker when the build is purged.
 */
export class TrackerIssues1700000033000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tracker_issues',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'tracker', type: 'varchar', length: '40' },
          { name: 'project', type: 'varchar', length: '200' },
          { name: 'title', type: 'varchar', length: '250' },
          { name: 'description', type: 'text' },
          { name: 'recording_id', type: 'integer', isNullable: true },
          { name: 'session_id', type: 'varchar', length: '200', isNullable: true },
          { name: 'from_ms', type: 'integer', isNullable: true },
          { name: 'to_ms', type: 'integer', isNullable: true },
          { name: 'reported_by', type: 'integer', isNullable: true },
          { name: 'status', type: 'varchar', length: '12' },
          { name: 'attempts', type: 'integer', default: 0 },
          timestamp('next_attempt_at'),
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'external_id', type: 'varchar', length: '100', isNullable: true },
          { name: 'external_url', type: 'varchar', length: '2048', isNullable: true },
          { name: 'external_status', type: 'varchar', length: '100', isNullable: true },
          timestamp('closed_at', true),
          { name: 'build_status_at_close', type: 'varchar', length: '40', isNullable: true },
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        indices: [
          { name: 'IDX_tracker_issues_build', columnNames: ['build_id'] },
          { name: 'IDX_tracker_issues_due', columnNames: ['status', 'next_attempt_at'] },
          { name: 'IDX_tracker_issues_external', columnNames: ['external_id'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('tracker_issues');
  }
}
