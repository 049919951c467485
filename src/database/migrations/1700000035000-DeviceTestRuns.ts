import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { idColumn, timestamp } from '../migration-columns';

/**
 * Test runs of builds (issue 37 "Results beside the verdict", docs/device-tests.md): a run per
 * build and `svc:name`, its hub sessions, and the test cases of the JUnit report CI uploaded for
 * it. Removed with their build (ON DELETE CASCADE).
 */
export class DeviceTestRuns1700000035000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'device_test_runs',
        columns: [
          idColumn(),
          { name: 'build_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '200' },
          timestamp('created_at'),
          timestamp('reported_at', true),
          { name: 'reported_by', type: 'integer', isNullable: true },
        ],
        indices: [{ name: 'UQ_device_test_runs_build_name', columnNames: ['build_id', 'name'], isUnique: true }],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'device_test_cases',
        columns: [
          idColumn(),
          { name: 'run_id', type: 'integer' },
          { name: 'position', type: 'integer' },
          { name: 'name', type: 'varchar', length: '500' },
          { name: 'class_name', type: 'varchar', length: '500', isNullable: true },
          { name: 'status', type: 'varchar', length: '10' },
          { name: 'duration_ms', type: 'integer', isNullable: true },
          { name: 'message', type: 'text', isNullable: true },
          { name: 'session_id', type: 'varchar', length: '200', isNullable: true },
        ],
        indices: [{ name: 'IDX_device_test_cases_run', columnNames: ['run_id', 'position'] }],
        foreignKeys: [{ columnNames: ['run_id'], referencedTableName: 'device_test_runs', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'device_test_sessions',
        columns: [
          idColumn(),
          { name: 'hub_session_id', type: 'varchar', length: '200' },
          { name: 'run_id', type: 'integer' },
          { name: 'device_session_id', type: 'varchar', length: '200' },
          { name: 'user_id', type: 'integer', isNullable: true },
          { name: 'status', type: 'varchar', length: '10' },
          { name: 'reason', type: 'varchar', length: '1000', isNullable: true },
          { name: 'end_reason', type: 'varchar', length: '40', isNullable: true },
          timestamp('started_at'),
          timestamp('ended_at', true),
        ],
        indices: [
          { name: 'UQ_device_test_sessions_hub_session', columnNames: ['hub_session_id'], isUnique: true },
          { name: 'IDX_device_test_sessions_run', columnNames: ['run_id'] },
        ],
        foreignKeys: [{ columnNames: ['run_id'], referencedTableName: 'device_test_runs', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('device_test_sessions');
    await q.dropTable('device_test_cases');
    await q.dropTable('device_test_runs');
  }
}
