import type { RunState } from '../test-run-state';

/**
 * A build's test run has its results (committed): CI uploaded its JUnit report, or the last of its
 * running hub sessions ended. The webhooks send `build.test_run_completed` (beyond the spec;
 * docs/device-tests.md "Webhooks").
 */
export class TestRunCompletedEvent {
  static readonly eventName = 'build.test_run_completed';
  constructor(
    readonly buildId: number,
    readonly runId: number,
    readonly name: string,
    readonly state: RunState,
    readonly counts: { tests: number; passed: number; failed: number; skipped: number; sessions: number },
    readonly at: Date,
  ) {}
}
