import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Request } from 'express';
import { BuildQueryService } from '../../builds/build-query.service';
import { Clock } from '../../common/clock';
import { badRequest } from '../../common/errors/http-error';
import { RecordingsService } from '../../recordings/recordings.service';
import { StoragePaths } from '../../storage/storage-paths';
import { DeviceTestSessionsService } from '../evidence/device-test-sessions.service';
import { DeviceTestsChangedEvent } from '../results/device-tests-changed.event';
import { TestRunCompletedEvent } from './events/test-run-completed.event';
import { JUnitReportError, readJUnitReport } from './junit-report';
import { receiveJUnitReport } from './junit-upload';
import { countsOf, GatheredRun, runStateOf, TestRun, toTestRun } from './test-runs.mapper';
import { TestRunsRepository } from './test-runs.repository';

/** The run name of a JUnit report that names none (no `name`, no `<testsuites name>`), and of hub sessions without `svc:name`. */
export const DEFAULT_RUN_NAME = 'default';
const MAX_RUN_NAME = 200;
/** A device session's recording counts for a hub session that ended at most this long before the recording was saved. */
const RECORDING_SLACK_MS = 5 * 60_000;

/**
 * Test runs of builds (docs/device-tests.md "Results"): JUnit reports uploaded by CI, stored in one
 * transaction per report, and the listing of a build's runs with their hub sessions, results and
 * recordings. The hub sessions' side is HubRunSessions.
 */
@Injectable()
export class TestRunsService {
  private readonly logger = new Logger('DeviceTests');

  constructor(
    private readonly runs: TestRunsRepository,
    private readonly builds: BuildQueryService,
    private readonly recordings: RecordingsService,
    private readonly storage: StoragePaths,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly evidence: DeviceTestSessionsService,
  ) {}

  /** POST /builds/:id/test-runs: reads the report (bounded), then stores it whole or not at all. */
  async upload(buildId: number, req: Request, userId: number): Promise<TestRun> {
    await this.builds.get(buildId);
    const received = await receiveJUnitReport(req, this.storage.tmp);
    let report;
    try {
      report = readJUnitReport(received.xml);
    } catch (err) {
      if (err instanceof JUnitReportError) throw badRequest(err.message);
      throw err;
    }
    const name = (received.name ?? report.name ?? DEFAULT_RUN_NAME).trim().slice(0, MAX_RUN_NAME);
    if (!name) throw badRequest('name must not be empty');
    const at = this.clock.now();
    const runId = await this.runs.storeReport(buildId, name, report.cases, userId, at);
    const run = (await this.gather(buildId)).find((r) => r.run.id === runId)!;
    this.completed(run, at);
    this.changed(buildId);
    return toTestRun(run);
  }

  /** GET /builds/:id/test-runs. */
  async list(buildId: number): Promise<TestRun[]> {
    await this.builds.get(buildId);
    return (await this.gather(buildId)).map(toTestRun);
  }

  /** Emits build.test_run_completed for a run that has its results (never throws). */
  completed(gathered: GatheredRun, at: Date): void {
    const counts = countsOf(gathered.cases);
    const event = new TestRunCompletedEvent(gathered.run.buildId, gathered.run.id, gathered.run.name, runStateOf(gathered.cases, gathered.sessions), { ...counts, sessions: gathered.sessions.length }, at);
    this.emit(TestRunCompletedEvent.eventName, event);
  }

  changed(buildId: number): void {
    this.emit(DeviceTestsChangedEvent.eventName, new DeviceTestsChangedEvent(buildId));
  }

  /** A build's runs with their cases, sessions, the recordings of those sessions that are still kept, and what shows their failures. */
  async gather(buildId: number): Promise<GatheredRun[]> {
    const [runs, cases, sessions, recordings] = await Promise.all([
      this.runs.runsOfBuild(buildId),
      this.runs.casesOfBuild(buildId),
      this.runs.sessionsOfBuild(buildId),
      this.recordings.list(String(buildId)).catch(() => []),
    ]);
    const urls = new Map<string, string>();
    for (const session of sessions) {
      // The hub's recording is saved under the session's id, or under its device's with the session's time (docs/device-tests.md).
      const recording =
        recordings.find((r) => r.sessionId === session.hubSessionId) ??
        recordings.find((r) => {
          if (r.sessionId !== session.deviceSessionId) return false;
          const savedAt = Date.parse(r.createdAt);
          return savedAt >= session.startedAt.getTime() && savedAt <= (session.endedAt?.getTime() ?? this.clock.nowMs()) + RECORDING_SLACK_MS;
        });
      if (recording) urls.set(session.hubSessionId, recording.url);
    }
    const failed = [...sessions.filter((s) => s.status === 'failed').map((s) => s.hubSessionId), ...cases.filter((c) => c.status === 'failed' && c.sessionId).map((c) => c.sessionId!)];
    const failures = await this.evidence.failureEvidence(failed);
    return runs.map((run) => ({
      run,
      cases: cases.filter((c) => c.runId === run.id),
      sessions: sessions.filter((s) => s.runId === run.id),
      recordings: urls,
      failures,
    }));
  }

  private emit(name: string, event: object): void {
    try {
      this.events.emit(name, event);
    } catch (err) {
      this.logger.error(`A ${name} listener failed: ${(err as Error).message}`);
    }
  }
}
