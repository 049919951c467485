import type { ComparisonBody } from '../builds/contents/build-comparison';
import { parseGatePolicy, readReleaseGateConfig } from '../config/release-gate-config';
import { differencesOf } from './build-reviews.service';
import { describeGate, evaluateGate, GateInputs, GateReview } from './gate-evaluation';

const review = (id: number, role: string, verdict: GateReview['verdict'] = 'approve'): GateReview => ({
  id,
  reviewerId: id,
  name: `m${id}`,
  role,
  verdict,
  comment: null,
  carriedFromBuildId: null,
});

const noChange = { previousId: null } as const;
const links = { reviews: null, comparison: null };
const inputs = (policy: unknown, reviews: GateReview[], extra: Partial<GateInputs> = {}): GateInputs => ({
  policy: parseGatePolicy(policy),
  reviews,
  uploaderId: null,
  comparison: noChange,
  deviceTests: { state: 'none' },
  links,
  ...extra,
});

/** A comparison body with only what the rules read filled in. */
function body(change: { added?: string[]; delta?: number; percent?: number | null; signing?: boolean; minSdk?: boolean }): ComparisonBody {
  const list = { added: [], removed: [] };
  return {
    flags: change.minSdk ? [{ kind: 'min_sdk_raised', reason: 'Minimum SDK raised from 21 to 24', subject: null, watched: false }] : [],
    size: { file: { before: 100, after: 100 + (change.delta ?? 0), delta: change.delta ?? 0, percent: change.percent ?? 0 }, uncompressed: { before: 0, after: 0, delta: 0, percent: null }, compressed: null },
    categories: [],
    grown_entries: [],
    permissions: { added: change.added ?? [], removed: [] },
    features: list,
    abis: list,
    min_sdk: null,
    target_sdk: null,
    signing: { changed: !!change.signing, before: null, after: null, schemes: list },
    minimum_os: null,
    frameworks: list,
    extensions: list,
    usage_descriptions: list,
    required_device_capabilities: list,
    url_schemes: list,
  };
}

describe('evaluateGate', () => {
  it('counts approvals per role; an Admin counts for any role only when the policy says so', () => {
    expect(evaluateGate(inputs({ approvals: { QA: 2 } }, [review(1, 'QA'), review(2, 'Admin')])).checks[0].detail).toBe('needs 1 more QA approval (1 of 2: m1)');
    const any = evaluateGate(inputs({ approvals: { QA: 2 }, adminCountsForAnyRole: true }, [review(1, 'QA'), review(2, 'Admin')]));
    expect([any.state, any.checks[0].detail]).toEqual(['passed', '2 of 2: m1, m2']);
  });

  it('four-eyes: the uploader\'s approval does not count, their request for changes does', () => {
    const gate = evaluateGate(inputs({ approvals: { QA: 1 }, excludeUploader: true }, [review(1, 'QA'), review(2, 'QA', 'request_changes')], { uploaderId: 1 }));
    expect(gate.state).toBe('failed');
    expect(describeGate(gate)).toBe("Release gate failed: needs 1 more QA approval (0 of 1); the uploader's own approval does not count; changes requested by m2");
  });

  it('a triggered change rule blocks, or needs the named role; an untriggered one is met', () => {
    const comparison = { previousId: 4, body: body({ added: ['android.permission.CAMERA'], delta: 50, percent: 50, signing: true, minSdk: true }) };
    const policy = {
      rules: [
        { when: 'new_permission', permissions: ['android.permission.CAMERA'], then: 'require_approval', role: 'Admin' },
        { when: 'signing_changed', then: 'block' },
        { when: 'min_sdk_raised', then: 'require_approval', role: 'Developer' },
        { when: 'size_growth', percent: 60, then: 'block' },
        { when: 'size_growth', bytes: 10, then: 'block' },
      ],
    };
    const gate = evaluateGate(inputs(policy, [review(1, 'Developer')], { comparison }));
    expect(gate.checks.map((c) => [c.outcome, c.detail])).toEqual([
      ['met', 'none'],
      ['unmet', 'new permission android.permission.CAMERA since build #4: needs an approval by Admin'],
      ['unmet', 'signing certificate changed since build #4: blocks the release'],
      ['met', 'minimum SDK raised from 21 to 24 since build #4; approved by m1'],
      ['met', 'not the case since build #4'],
      ['unmet', 'grew by 50 bytes (50 %) since build #4: blocks the release'],
    ]);
  });

  it('fails closed when the comparison cannot be made; the first build has nothing to compare', () => {
    const rule = { rules: [{ when: 'signing_changed', then: 'block' }] };
    expect(evaluateGate(inputs(rule, [], { comparison: { previousId: 3, unavailable: 'no contents' } })).state).toBe('failed');
    expect(evaluateGate(inputs(rule, [])).state).toBe('passed');
  });

  it('device tests: none and running keep it pending, failed fails it', () => {
    const policy = { rules: [{ when: 'device_tests' }] };
    expect(evaluateGate(inputs(policy, [])).checks.at(-1)).toMatchObject({ outcome: 'waiting', detail: 'no device test results yet' });
    expect(evaluateGate(inputs(policy, [], { deviceTests: { state: 'running' } })).state).toBe('pending');
    expect(evaluateGate(inputs(policy, [], { deviceTests: { state: 'failed', url: 'https://x/run/1' } })).checks.at(-1)).toMatchObject({ outcome: 'unmet', evidence: 'https://x/run/1' });
    expect(evaluateGate(inputs(policy, [], { deviceTests: { state: 'passed' } })).state).toBe('passed');
  });
});

describe('parseGatePolicy', () => {
  it.each([
    [{ approvals: { Viewer: 1 } }, 'approvals.Viewer: is not a role that reviews (Admin, Developer, QA)'],
    [{ approvals: { QA: 1.5 } }, 'approvals.QA: must be a whole number from 0 to 20'],
    [{ rules: [{ when: 'size_growth', then: 'block' }] }, 'rules[0] (size_growth): needs percent or bytes (or both): the growth that triggers it'],
    [{ rules: [{ when: 'signing_changed' }] }, 'rules[0] (signing_changed).then: must be "block" or "require_approval"'],
    [{ rules: [{ when: 'device_tests', then: 'block' }] }, 'rules[0] (device_tests).then: is not a setting of this rule (known: when)'],
    [{ rules: [{ when: 'new_app' }] }, 'rules[0].when: must be one of new_permission, signing_changed, min_sdk_raised, size_growth, device_tests'],
    [{ carryForward: ['everything'] }, expect.stringContaining('carryForward: must be an array of differences')],
    [{ approval: { QA: 1 } }, expect.stringContaining('approval: is not a policy setting')],
  ])('%j is refused naming the rule', (policy, message) => {
    expect(() => parseGatePolicy(policy)).toThrow(expect.objectContaining({ message }));
  });
});

describe('readReleaseGateConfig', () => {
  it('stops the relay naming the key and the rule', () => {
    expect(() => readReleaseGateConfig({ apps: { 'com.acme': { rules: [{ when: 'new_permission', permissions: 'CAMERA', then: 'block' }] } } })).toThrow(
      'Invalid configuration releaseGate.apps.com.acme.rules[0] (new_permission).permissions: expected must be a non-empty array of permission names, e.g. ["android.permission.CAMERA"]',
    );
    expect(readReleaseGateConfig(undefined)).toEqual({ default: null, apps: {} });
  });
});

describe('differencesOf (carried reviews)', () => {
  it('names each way a rebuild differs, in the policy\'s words', () => {
    const was = { versionName: '1.0', buildNumber: '7' };
    expect(differencesOf({ versionName: '1.0', buildNumber: '8' }, was, body({}))).toEqual(['build_number']);
    expect(differencesOf({ versionName: '1.0', buildNumber: '8' }, was, body({ delta: 12, added: ['android.permission.CAMERA'], signing: true }))).toEqual([
      'build_number',
      'size',
      'permissions',
      'signing',
    ]);
    expect(differencesOf(was, was, body({}))).toEqual([]);
  });
});
