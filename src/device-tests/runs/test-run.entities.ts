import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/** A test's outcome as JUnit reports it (`error` and `failure` both count as failed). */
export type TestCaseStatus = 'passed' | 'failed' | 'skipped';

/** A hub session's state in its run: running, marked by its client (svc:status), or ended unmarked. */
export type RunSessionStatus = 'running' | 'passed' | 'failed' | 'ended';

/**
 * A test run of a build (docs/device-tests.md "Results"): the hub sessions that named it
 * (`svc:name`) and the JUnit report CI uploaded under that name. One per build and name.
 */
@Entity('device_test_runs')
@Index('UQ_device_test_runs_build_name', ['buildId', 'name'], { unique: true })
export class DeviceTestRunEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  /** When the JUnit report was stored (null: no report, sessions only). */
  @TimestampColumn({ name: 'reported_at', nullable: true })
  reportedAt: Date | null;

  @Column({ name: 'reported_by', type: 'integer', nullable: true })
  reportedBy: number | null;
}

/** One test case of a run's JUnit report, in the report's order. */
@Entity('device_test_cases')
@Index('IDX_device_test_cases_run', ['runId', 'position'])
export class DeviceTestCaseEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'run_id', type: 'integer' })
  runId: number;

  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'varchar', length: 500 })
  name: string;

  @Column({ name: 'class_name', type: 'varchar', length: 500, nullable: true })
  className: string | null;

  @Column({ type: 'varchar', length: 10 })
  status: TestCaseStatus;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs: number | null;

  @Column({ type: 'text', nullable: true })
  message: string | null;

  /** The hub session the test ran in, as the report named it (a `svc:session` property or `svc:session=<id>` in system-out). */
  @Column({ name: 'session_id', type: 'varchar', length: 200, nullable: true })
  sessionId: string | null;
}

/** A hub session of a run, written when it starts and when it ends. */
@Entity('device_test_sessions')
@Index('IDX_device_test_sessions_run', ['runId'])
export class DeviceTestSessionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** The WebDriver session id (Appium's), which the client holds. */
  @Index('UQ_device_test_sessions_hub_session', { unique: true })
  @Column({ name: 'hub_session_id', type: 'varchar', length: 200 })
  hubSessionId: string;

  @Column({ name: 'run_id', type: 'integer' })
  runId: number;

  /** The device's session id (as GET /devices shows it). */
  @Column({ name: 'device_session_id', type: 'varchar', length: 200 })
  deviceSessionId: string;

  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @Column({ type: 'varchar', length: 10 })
  status: RunSessionStatus;

  /** The client's svc:status, kept as soon as it is given (status takes it when the session ends). */
  @Column({ type: 'varchar', length: 10, nullable: true })
  verdict: 'passed' | 'failed' | null;

  /** The relay instance running it (ClusterBus.instanceId): a running row whose instance is gone is ended at start-up. */
  @Column({ name: 'instance_id', type: 'varchar', length: 64, nullable: true })
  instanceId: string | null;

  /** The client's reason (svc:status), or why the session ended. */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  reason: string | null;

  @Column({ name: 'end_reason', type: 'varchar', length: 40, nullable: true })
  endReason: string | null;

  @TimestampColumn({ name: 'started_at' })
  startedAt: Date;

  @TimestampColumn({ name: 'ended_at', nullable: true })
  endedAt: Date | null;
}
