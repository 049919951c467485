import type { DeviceTestSummary } from '../../device-tests/runs/build-device-tests';
import type { ReviewedBuild } from './commit-status';
import { deviceTestsStatus } from './device-tests-status';

const build = (id: number, platform: 'ios' | 'android') => ({ id, platform, name: `App ${id}`, pageUrl: `https://relay.example.test/builds/${id}` }) as ReviewedBuild;
const tests = (state: DeviceTestSummary['state'], passed = 0, failed = 0): DeviceTestSummary => ({ state, passed, failed });

describe('deviceTestsStatus', () => {
  it('is absent while no build of the commit was tested', () => {
    expect(deviceTestsStatus([{ build: build(1, 'android'), tests: tests('none') }])).toBeNull();
  });

  it('reads the newest build per platform: pending while any runs, else failure on any failure', () => {
    const status = deviceTestsStatus([
      { build: build(1, 'android'), tests: tests('failed', 0, 3) },
      { build: build(2, 'android'), tests: tests('passed', 4) },
      { build: build(3, 'ios'), tests: tests('failed', 1, 1) },
    ]);
    expect(status).toMatchObject({
      context: 'svc/device-tests',
      state: 'failure',
      buildId: 3,
      description: 'android: Device tests passed: 4 passed; ios: Device tests failed: 1 failed, 1 passed',
      targetUrl: 'https://relay.example.test/builds/3#device-tests',
    });
    expect(deviceTestsStatus([{ build: build(4, 'ios'), tests: tests('running') }, { build: build(5, 'android'), tests: tests('failed', 0, 1) }])).toMatchObject({
      state: 'pending',
      buildId: 4,
    });
  });
});
