import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * A run's hub session keeps the instance that runs it (a relay killed mid-session leaves the row
 * `running`: the next start-up ends the rows of instances that are gone, docs/device-tests.md) and
 * its client's svc:status as soon as it is given (not only when the session ends), so another
 * instance and a restarted relay see it.
 */
export class DeviceTestSessionOwners1700000040000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('device_test_sessions', new TableColumn({ name: 'instance_id', type: 'varchar', length: '64', isNullable: true }));
    await q.addColumn('device_test_sessions', new TableColumn({ name: 'verdict', type: 'varchar', length: '10', isNullable: true }));
    // Ended sessions' marks, so the column means "the client's svc:status" for every row.
    await q.query(`UPDATE device_test_sessions SET verdict = status WHERE status IN ('passed', 'failed')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('device_test_sessions', 'verdict');
    await q.dropColumn('device_test_sessions', 'instance_id');
  }
}
