import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Issue trackers join the one outbox (issue 39 item 4, docs/integrations.md "One delivery path"):
 * `tracker_issues` keeps the issue (its delivery step, key, link, status, the last error shown on
 * the build) and `outbox_messages` its delivery. Every issue still to file or to attach becomes a
 * queued `tracker` message carrying its attempts, next attempt and last error; the delivery columns
 * of `tracker_issues` go.
 */
export class TrackerIssuesThroughOutbox1700000039000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `INSERT INTO outbox_messages (kind, destination, payload, status, attempts, next_attempt_at, last_error, last_attempt_at, created_at, delivered_at)
       SELECT 'tracker', 'tracker:' || tracker, '{"issueId":' || id || '}', 'queued', attempts, next_attempt_at, last_error,
              CASE WHEN attempts > 0 THEN updated_at ELSE NULL END, created_at, NULL
       FROM tracker_issues WHERE status IN ('queued', 'attaching') ORDER BY id`,
    );
    await q.dropIndex('tracker_issues', 'IDX_tracker_issues_due');
    await q.dropColumn('tracker_issues', 'next_attempt_at');
    await q.dropColumn('tracker_issues', 'attempts');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.addColumn('tracker_issues', new TableColumn({ name: 'attempts', type: 'integer', default: 0 }));
    await q.addColumn('tracker_issues', new TableColumn({ name: 'next_attempt_at', type: 'bigint', default: 0 }));
    await q.query(`UPDATE tracker_issues SET next_attempt_at = created_at`);
    await q.createIndex('tracker_issues', new TableIndex({ name: 'IDX_tracker_issues_due', columnNames: ['status', 'next_attempt_at'] }));
    await q.query(`DELETE FROM outbox_messages WHERE kind = 'tracker'`);
  }
}
