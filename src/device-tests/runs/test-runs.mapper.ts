import { ApiProperty } from '@nestjs/swagger';
import { nullableIso, isoWithMillis } from '../../common/time';
import type { FailureEvidence } from '../evidence/device-test-sessions.service';
import type { DeviceTestCaseEntity, DeviceTestRunEntity, DeviceTestSessionEntity } from './test-run.entities';
import { RunState, stateOf } from './test-run-state';

const RUN_STATES = ['none', 'running', 'passed', 'failed'] as const;

export class TestRunCounts {
  @ApiProperty({ description: 'test cases of the JUnit report' })
  tests: number;
  @ApiProperty()
  passed: number;
  @ApiProperty({ description: 'failures and errors' })
  failed: number;
  @ApiProperty()
  skipped: number;
}

/** A hub session of a run (`svc:name`), with its client's mark (`svc:status`). */
export class TestRunSession {
  @ApiProperty({ description: 'the WebDriver session id' })
  id: string;
  @ApiProperty({ description: 'the device it ran on, as GET /devices names it' })
  device_session_id: string;
  @ApiProperty({ enum: ['running', 'passed', 'failed', 'ended'], description: 'ended: ended without svc:status' })
  status: string;
  @ApiProperty({ type: String, nullable: true, enum: ['passed', 'failed'], description: "the client's svc:status as soon as it gave it, on any instance (status takes it when the session ends)" })
  verdict: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the client's svc:status reason" })
  reason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why it ended: deleted, idle, client gone, agent offline, ended by an Admin, relay stopping, the relay restarted (a relay killed while it ran)' })
  end_reason: string | null;
  @ApiProperty({ format: 'date-time' })
  started_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  ended_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the session's recording, while it is kept" })
  recording_url: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'a failed session’s final screenshot (PNG), while it is kept; null otherwise' })
  screenshot_url: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'a failed session’s failing command (the last that answered an error, else the last before its end): ms from the recording’s first frame (a player seeks to failed_at_ms / 1000)',
  })
  failed_at_ms: number | null;
}

/** One test case of the run's JUnit report. */
export class TestResult {
  @ApiProperty()
  name: string;
  @ApiProperty({ type: String, nullable: true })
  class_name: string | null;
  @ApiProperty({ enum: ['passed', 'failed', 'skipped'] })
  status: string;
  @ApiProperty({ type: Number, nullable: true })
  duration_ms: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'the failure, error or skip message' })
  message: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the hub session the report names for it (svc:session)' })
  session_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: "that session's recording, while it is kept" })
  recording_url: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'a failed test’s session’s final screenshot (PNG), while it is kept; null otherwise' })
  screenshot_url: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'a failed test’s failing command in its session (the last that answered an error, else the last before the end): ms from the recording’s first frame',
  })
  failed_at_ms: number | null;
}

/** A test run of a build: its hub sessions and its JUnit results (beyond the spec; docs/device-tests.md). */
export class TestRun {
  @ApiProperty()
  id: number;
  @ApiProperty()
  build_id: number;
  @ApiProperty({ description: "the run's name: svc:name of its sessions, the name given with the report" })
  name: string;
  @ApiProperty({ enum: RUN_STATES })
  state: RunState;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when the JUnit report was stored; null: none yet' })
  reported_at: string | null;
  @ApiProperty({ type: TestRunCounts })
  counts: TestRunCounts;
  @ApiProperty({ type: [TestRunSession] })
  sessions: TestRunSession[];
  @ApiProperty({ type: [TestResult] })
  results: TestResult[];
}

export class TestRunList {
  @ApiProperty({ type: [TestRun] })
  runs: TestRun[];
}

/** A run with what belongs to it, as the service gathered it. */
export interface GatheredRun {
  run: DeviceTestRunEntity;
  cases: DeviceTestCaseEntity[];
  sessions: DeviceTestSessionEntity[];
  /** Recording URLs by hub session id. */
  recordings: Map<string, string>;
  /** The final screenshot and failing command of the sessions that failed or that failed tests name, by hub session id. */
  failures: Map<string, FailureEvidence>;
}

export function countsOf(cases: DeviceTestCaseEntity[]): TestRunCounts {
  const counts = { tests: cases.length, passed: 0, failed: 0, skipped: 0 };
  for (const c of cases) counts[c.status]++;
  return counts;
}

export function runStateOf(cases: DeviceTestCaseEntity[], sessions: DeviceTestSessionEntity[]): RunState {
  const counts = countsOf(cases);
  return stateOf({
    running: sessions.some((s) => s.status === 'running'),
    failed: counts.failed + sessions.filter((s) => s.status === 'failed').length,
    passed: counts.passed + sessions.filter((s) => s.status === 'passed').length,
  });
}

export function toTestRun({ run, cases, sessions, recordings, failures }: GatheredRun): TestRun {
  const recordingOf = (id: string | null) => (id ? (recordings.get(id) ?? failures.get(id)?.recordingUrl ?? null) : null);
  const failureOf = (id: string | null, failed: boolean) => {
    const failure = failed && id ? failures.get(id) : undefined;
    return { screenshot_url: failure?.screenshotUrl ?? null, failed_at_ms: failure?.failedAtMs ?? null };
  };
  return {
    id: run.id,
    build_id: run.buildId,
    name: run.name,
    state: runStateOf(cases, sessions),
    created_at: isoWithMillis(run.createdAt),
    reported_at: nullableIso(run.reportedAt),
    counts: countsOf(cases),
    sessions: sessions.map((s) => ({
      id: s.hubSessionId,
      device_session_id: s.deviceSessionId,
      status: s.status,
      verdict: s.verdict,
      reason: s.reason,
      end_reason: s.endReason,
      started_at: isoWithMillis(s.startedAt),
      ended_at: nullableIso(s.endedAt),
      recording_url: recordingOf(s.hubSessionId),
      ...failureOf(s.hubSessionId, s.status === 'failed'),
    })),
    results: cases.map((c) => ({
      name: c.name,
      class_name: c.className,
      status: c.status,
      duration_ms: c.durationMs,
      message: c.message,
      session_id: c.sessionId,
      recording_url: recordingOf(c.sessionId),
      ...failureOf(c.sessionId, c.status === 'failed'),
    })),
  };
}
