/**
 * The port through which the release gate reads device-test results (issue 37's hub in
 * src/device-tests/ provides it). Injected optionally: without a provider every build reads
 * `none`, and a `device_tests` rule says "no device test results yet". The hub emits
 * DEVICE_TESTS_CHANGED with `{ buildId }` when a build's results change; the gate re-evaluates then.
 */
export const DEVICE_TEST_RESULTS = Symbol('DEVICE_TEST_RESULTS');

export interface DeviceTestResults {
  forBuild(buildId: number): Promise<{ state: 'none' | 'running' | 'passed' | 'failed'; url?: string }>;
}

/** The event the device-tests hub emits (payload `{ buildId: number }`). */
export const DEVICE_TESTS_CHANGED = 'device-tests.changed';
