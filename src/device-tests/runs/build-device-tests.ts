import { Injectable } from '@nestjs/common';
import { HubDeviceTestResults } from '../results/hub-device-test-results';
import { RunState, stateOf } from './test-run-state';
import { TestRunsRepository } from './test-runs.repository';

/** A build's device tests in one line: its state and how many tests and sessions passed and failed. */
export interface DeviceTestSummary {
  state: RunState;
  passed: number;
  failed: number;
  url?: string;
}

/**
 * A build's device-test state from everything that reports one: its hub sessions running now and
 * their svc:status (HubDeviceTestResults, in memory), and its stored runs (JUnit test cases,
 * sessions' marks, kept across restarts). What the release gate's DEVICE_TEST_RESULTS port and the
 * `svc/device-tests` commit status read.
 */
@Injectable()
export class BuildDeviceTests {
  constructor(
    private readonly hub: HubDeviceTestResults,
    private readonly runs: TestRunsRepository,
  ) {}

  async forBuild(buildId: number): Promise<{ state: RunState; url?: string }> {
    const { state, url } = await this.summary(buildId);
    return url ? { state, url } : { state };
  }

  async summary(buildId: number): Promise<DeviceTestSummary> {
    const [hub, stored] = await Promise.all([this.hub.forBuild(buildId), this.runs.outcomesOfBuild(buildId)]);
    const state = stateOf({
      running: hub.state === 'running',
      failed: stored.failed + (hub.state === 'failed' ? 1 : 0),
      passed: stored.passed + (hub.state === 'passed' ? 1 : 0),
    });
    return { state, passed: stored.passed, failed: stored.failed, ...(hub.url ? { url: hub.url } : {}) };
  }
}
