import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Every run recorded (issue 37 item 4, docs/device-tests.md): an ended WebDriver hub session with
 * its command timeline and the names of its recording, final screenshot and device log, kept as
 * long as recordings. No foreign keys: the evidence outlives neither its build nor its recording
 * by more than the shared retention, and is purged with them.
 */
export class HubSessions1700000036000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'hub_sessions',
        columns: [
          idColumn(),
          { name: 'session_id', type: 'varchar', length: '100', isUnique: true },
          { name: 'device_session_id', type: 'varchar', length: '200' },
          { name: 'build_id', type: 'integer', isNullable: true },
          { name: 'run_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'user_id', type: 'integer', isNullable: true },
          { name: 'member', type: 'varchar', length: '200' },
          timestamp('started_at'),
          timestamp('ended_at'),
          { name: 'end_reason', type: 'varchar', length: '40' },
          { name: 'verdict', type: 'varchar', length: '10', isNullable: true },
          { name: 'verdict_reason', type: 'varchar', length: '1000', isNullable: true },
          { name: 'recording', type: 'varchar', length: '100', isNullable: true },
          { name: 'screenshot', type: 'varchar', length: '100', isNullable: true },
          { name: 'device_log', type: 'varchar', length: '100', isNullable: true },
          { name: 'log_type', type: 'varchar', length: '20', isNullable: true },
          { name: 'timeline', type: 'text' },
          timestamp('expires_at'),
        ],
        indices: [
          { name: 'IDX_hub_sessions_build_id', columnNames: ['build_id'] },
          { name: 'IDX_hub_sessions_expires_at', columnNames: ['expires_at'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('hub_sessions');
  }
}
