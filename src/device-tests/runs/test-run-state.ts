/** A run's (or a build's) device-test state: running while a session runs, then failed, passed, or none when nothing was marked. */
export type RunState = 'none' | 'running' | 'passed' | 'failed';

/** The state of a set of outcomes: running wins, then any failure, then any pass. */
export function stateOf(outcome: { running: boolean; passed: number; failed: number }): RunState {
  if (outcome.running) return 'running';
  if (outcome.failed) return 'failed';
  return outcome.passed ? 'passed' : 'none';
}
