import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/timestamp.column';

/**
 * An ended WebDriver hub session and its evidence (docs/device-tests.md "What is recorded"): the
 * command timeline (JSON), and the names of its recording, final screenshot and device log.
 * Kept as long as recordings are (72 hours after it ended), then purged with its files.
 */
@Entity('hub_sessions')
export class HubSessionRecordEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** Appium's session id, the one its client used. */
  @Column({ name: 'session_id', type: 'varchar', length: 100, unique: true })
  sessionId: string;

  @Column({ name: 'device_session_id', type: 'varchar', length: 200 })
  deviceSessionId: string;

  @Index('IDX_hub_sessions_build_id')
  @Column({ name: 'build_id', type: 'integer', nullable: true })
  buildId: number | null;

  @Column({ name: 'run_name', type: 'varchar', length: 200, nullable: true })
  runName: string | null;

  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @Column({ type: 'varchar', length: 200 })
  member: string;

  @TimestampColumn({ name: 'started_at' })
  startedAt: Date;

  @TimestampColumn({ name: 'ended_at' })
  endedAt: Date;

  @Column({ name: 'end_reason', type: 'varchar', length: 40 })
  endReason: string;

  @Column({ name: 'verdict', type: 'varchar', length: 10, nullable: true })
  verdict: string | null;

  @Column({ name: 'verdict_reason', type: 'varchar', length: 1000, nullable: true })
  verdictReason: string | null;

  /** The recording's file name (recordings module); null when nothing was recorded. */
  @Column({ name: 'recording', type: 'varchar', length: 100, nullable: true })
  recording: string | null;

  /** The final screenshot's file name in the store (`device-tests/`). */
  @Column({ name: 'screenshot', type: 'varchar', length: 100, nullable: true })
  screenshot: string | null;

  @Column({ name: 'device_log', type: 'varchar', length: 100, nullable: true })
  deviceLog: string | null;

  /** Appium's log type read: `logcat` or `syslog`. */
  @Column({ name: 'log_type', type: 'varchar', length: 20, nullable: true })
  logType: string | null;

  /** `{ commands, truncated }` (command-timeline.ts), `at` in ms from the recording's first frame (or from the start when unrecorded). */
  @Column({ type: 'text' })
  timeline: string;

  @Index('IDX_hub_sessions_expires_at')
  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;
}
