import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Commit statuses on forges (issue 25, docs/integrations.md "Forges"), delivered like money:
 * - `forge_status_outbox`: every status the relay means to post, in order (id); one per change of
 *   what a (repository, commit, context) should show. Only the newest of a key is ever sent (older
 *   queued ones are superseded), so a late `pending` never overwrites a newer `success`.
 * - `forge_deliveries`: each attempt (the delivery log the dashboard shows).
 * - `forge_feed`: how far the relay has read the builds' status history (one row), so a verdict
 *   committed just before a kill -9 is still turned into a status after the restart.
 * No foreign keys to builds: a status already on a commit stays there when the build is purged.
 */
export class ForgeOutbox1700000025100 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'forge_status_outbox',
        columns: [
          idColumn(),
          { name: 'repository', type: 'varchar', length: '200' },
          { name: 'commit_sha', type: 'varchar', length: '64' },
          { name: 'context', type: 'varchar', length: '120' },
          { name: 'build_id', type: 'integer' },
          { name: 'state', type: 'varchar', length: '10' },
          { name: 'description', type: 'varchar', length: '300' },
          { name: 'target_url', type: 'varchar', length: '2048', isNullable: true },
          { name: 'summary', type: 'text', isNullable: true },
          { name: 'status', type: 'varchar', length: '12' },
          { name: 'attempts', type: 'integer', default: 0 },
          timestamp('next_attempt_at'),
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          timestamp('created_at'),
          timestamp('delivered_at', true),
        ],
        indices: [
          { name: 'IDX_forge_outbox_due', columnNames: ['status', 'next_attempt_at'] },
          { name: 'IDX_forge_outbox_key', columnNames: ['repository', 'commit_sha', 'context'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'forge_deliveries',
        columns: [
          idColumn(),
          { name: 'outbox_id', type: 'integer' },
          { name: 'forge', type: 'varchar', length: '300' },
          timestamp('attempted_at'),
          { name: 'status_code', type: 'integer', isNullable: true },
          { name: 'error', type: 'varchar', length: '500', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
        ],
        indices: [{ name: 'IDX_forge_deliveries_outbox', columnNames: ['outbox_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'forge_feed',
        columns: [
          { name: 'name', type: 'varchar', length: '40', isPrimary: true },
          { name: 'last_id', type: 'integer' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('forge_feed');
    await q.dropTable('forge_deliveries');
    await q.dropTable('forge_status_outbox');
  }
}
