import type { Platform } from '../../app-catalogue/platform';
import type { DeviceTestSummary } from '../../device-tests/runs/build-device-tests';
import { inlineText } from '../markdown/inert-text';
import type { StatusState } from '../outbox/forge-status.entity';
import { clip, DesiredStatus, ReviewedBuild } from './commit-status';

/** The device tests' status context (docs/device-tests.md "On the pull request"). */
export const DEVICE_TESTS_CONTEXT = 'svc/device-tests';

const STATE: Record<string, StatusState> = { running: 'pending', passed: 'success', failed: 'failure' };

/**
 * `svc/device-tests` of a commit: the device tests of its newest build per platform (builds none
 * of whose tests ran left aside). Pending while sessions run, failure when any test or session
 * failed, success when all passed; none when no build of the commit was tested.
 */
export function deviceTestsStatus(builds: { build: ReviewedBuild; tests: DeviceTestSummary }[]): DesiredStatus | null {
  const newest = new Map<Platform, { build: ReviewedBuild; tests: DeviceTestSummary }>();
  for (const entry of builds) {
    const seen = newest.get(entry.build.platform);
    if (!seen || entry.build.id > seen.build.id) newest.set(entry.build.platform, entry);
  }
  const tested = [...newest.values()].filter((e) => e.tests.state !== 'none').sort((a, b) => a.build.platform.localeCompare(b.build.platform));
  if (!tested.length) return null;
  const states = tested.map((e) => STATE[e.tests.state]);
  const state: StatusState = states.includes('pending') ? 'pending' : states.includes('failure') ? 'failure' : 'success';
  const deciding = tested.find((e) => STATE[e.tests.state] === state) ?? tested[tested.length - 1];
  const description = tested.length === 1 ? describe(deciding.tests) : tested.map((e) => `${e.build.platform}: ${describe(e.tests)}`).join('; ');
  return {
    context: DEVICE_TESTS_CONTEXT,
    buildId: deciding.build.id,
    state,
    description: clip(description),
    targetUrl: deciding.build.pageUrl ? `${deciding.build.pageUrl}#device-tests` : null,
    summary: tested.map((e) => `**${e.build.pageUrl ? `[${inlineText(e.build.name)}](${e.build.pageUrl})` : inlineText(e.build.name)}** (${e.build.platform}): ${describe(e.tests)}`).join('\n\n'),
  };
}

function describe(tests: DeviceTestSummary): string {
  if (tests.state === 'running') return 'Device tests running';
  const counts = [tests.failed && `${tests.failed} failed`, tests.passed && `${tests.passed} passed`].filter(Boolean).join(', ');
  return `Device tests ${tests.state}${counts ? `: ${counts}` : ''}`;
}
