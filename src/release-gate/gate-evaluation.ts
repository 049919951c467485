import type { ComparisonBody } from '../builds/contents/build-comparison';
import type { GatePolicy, GateRole, GateRule } from '../config/release-gate-config';
import type { GateState, ReviewVerdict } from './release-gate.entities';

/** A current review as the evaluation reads it. */
export interface GateReview {
  id: number;
  reviewerId: number | null;
  /** Display name, else the e-mail's local part. */
  name: string;
  role: string;
  verdict: ReviewVerdict;
  comment: string | null;
  carriedFromBuildId: number | null;
}

/** What changed against the previous build of the same app and platform. */
export type GateComparison =
  | { previousId: null }
  | { previousId: number; unavailable: string }
  | { previousId: number; body: ComparisonBody };

export interface GateDeviceTests {
  state: 'none' | 'running' | 'passed' | 'failed';
  url?: string;
}

/** Where a check's evidence is (null where the relay has no public URL). */
export interface GateLinks {
  reviews: string | null;
  comparison: string | null;
}

export interface GateInputs {
  policy: GatePolicy;
  reviews: GateReview[];
  uploaderId: number | null;
  comparison: GateComparison;
  deviceTests: GateDeviceTests;
  links: GateLinks;
}

export type CheckOutcome = 'met' | 'unmet' | 'waiting';

/** One line of the checklist: a rule of the policy, met or not, with why and a link to its evidence. */
export interface GateCheck {
  key: string;
  label: string;
  outcome: CheckOutcome;
  detail: string;
  evidence: string | null;
}

export interface GateVerdict {
  state: GateState;
  checks: GateCheck[];
}

/**
 * The gate of one build under its policy: a pure function of the inputs (docs/release-gate.md).
 * Any unmet check fails it; else any check still waiting (device tests running or not reported)
 * keeps it pending; else it passed. An empty policy passes.
 */
export function evaluateGate(input: GateInputs): GateVerdict {
  const { policy } = input;
  const counted = input.reviews.filter((r) => r.verdict === 'approve' && !(policy.excludeUploader && r.reviewerId !== null && r.reviewerId === input.uploaderId));
  const approversFor = (role: GateRole) => counted.filter((r) => r.role === role || (policy.adminCountsForAnyRole && r.role === 'Admin'));
  const checks: GateCheck[] = [];
  const excluded = policy.excludeUploader && input.reviews.some((r) => r.verdict === 'approve' && r.reviewerId !== null && r.reviewerId === input.uploaderId);
  const uploaderNote = excluded ? "; the uploader's own approval does not count" : '';

  for (const [role, needed] of Object.entries(policy.approvals) as [GateRole, number][]) {
    const approvers = approversFor(role);
    const names = approvers.map(nameOf).join(', ');
    const have = Math.min(approvers.length, needed);
    checks.push({
      key: `approvals.${role}`,
      label: `${needed} ${role} approval${needed === 1 ? '' : 's'}`,
      outcome: approvers.length >= needed ? 'met' : 'unmet',
      detail:
        approvers.length >= needed
          ? `${have} of ${needed}: ${names}${uploaderNote}`
          : `needs ${needed - approvers.length} more ${role} approval${needed - approvers.length === 1 ? '' : 's'} (${have} of ${needed}${names ? `: ${names}` : ''})${uploaderNote}`,
      evidence: input.links.reviews,
    });
  }

  if (policy.noRequestChanges) {
    const requests = input.reviews.filter((r) => r.verdict === 'request_changes');
    checks.push({
      key: 'no_request_changes',
      label: 'No outstanding request for changes',
      outcome: requests.length ? 'unmet' : 'met',
      detail: requests.length ? `changes requested by ${requests.map((r) => nameOf(r) + (r.comment ? `: ${firstLine(r.comment)}` : '')).join('; ')}` : 'none',
      evidence: input.links.reviews,
    });
  }

  policy.rules.forEach((rule, index) => checks.push(checkRule(rule, index, input, approversFor)));
  const state: GateState = checks.some((c) => c.outcome === 'unmet') ? 'failed' : checks.some((c) => c.outcome === 'waiting') ? 'pending' : 'passed';
  return { state, checks };
}

function checkRule(rule: GateRule, index: number, input: GateInputs, approversFor: (role: GateRole) => GateReview[]): GateCheck {
  const key = `rules[${index}].${rule.when}`;
  if (rule.when === 'device_tests') {
    const { state, url } = input.deviceTests;
    const detail = { none: 'no device test results yet', running: 'device tests running', passed: 'device tests passed', failed: 'device tests failed' }[state];
    return { key, label: 'Device tests passed', outcome: state === 'passed' ? 'met' : state === 'failed' ? 'unmet' : 'waiting', detail, evidence: url ?? null };
  }
  const effect = rule.then === 'block' ? 'blocks the release' : `needs an approval by ${rule.role}`;
  const label = `${labelOf(rule)}: ${effect}`;
  const { comparison } = input;
  const evidence = input.links.comparison;
  if (comparison.previousId === null) return { key, label, outcome: 'met', detail: 'first build of the app on its platform: nothing to compare', evidence: null };
  if ('unavailable' in comparison) {
    // Fail closed: a gate that cannot see what changed does not pass on what it cannot see.
    return { key, label, outcome: 'unmet', detail: `the comparison with build #${comparison.previousId} is not available: ${comparison.unavailable}`, evidence };
  }
  const found = triggered(rule, comparison.body);
  if (!found) return { key, label, outcome: 'met', detail: `not the case since build #${comparison.previousId}`, evidence };
  const what = `${found} since build #${comparison.previousId}`;
  if (rule.then === 'block') return { key, label, outcome: 'unmet', detail: `${what}: blocks the release`, evidence };
  const approvers = approversFor(rule.role);
  return approvers.length
    ? { key, label, outcome: 'met', detail: `${what}; approved by ${approvers.map(nameOf).join(', ')}`, evidence }
    : { key, label, outcome: 'unmet', detail: `${what}: needs an approval by ${rule.role}`, evidence };
}

function labelOf(rule: Exclude<GateRule, { when: 'device_tests' }>): string {
  switch (rule.when) {
    case 'new_permission':
      return `New permission from ${rule.permissions.join(', ')}`;
    case 'signing_changed':
      return 'Signing certificate changed';
    case 'min_sdk_raised':
      return 'Minimum SDK raised';
    case 'size_growth':
      return `Size grew by ${[rule.percent !== null && `${rule.percent} % or more`, rule.bytes !== null && `${rule.bytes} bytes or more`].filter(Boolean).join(' or ')}`;
  }
}

/** What of the comparison triggers the rule, in words, or null. */
function triggered(rule: Exclude<GateRule, { when: 'device_tests' }>, body: ComparisonBody): string | null {
  switch (rule.when) {
    case 'new_permission': {
      const listed = new Set(rule.permissions);
      const added = body.permissions.added.filter((p) => listed.has(p));
      return added.length ? `new permission ${added.join(', ')}` : null;
    }
    case 'signing_changed':
      return body.signing?.changed ? 'signing certificate changed' : null;
    case 'min_sdk_raised': {
      const flag = body.flags.find((f) => f.kind === 'min_sdk_raised' || f.kind === 'min_os_raised');
      return flag ? flag.reason.charAt(0).toLowerCase() + flag.reason.slice(1) : null;
    }
    case 'size_growth': {
      const file = body.size.file;
      if (file.delta <= 0) return null;
      const byPercent = rule.percent !== null && (file.percent === null || file.percent >= rule.percent);
      const byBytes = rule.bytes !== null && file.delta >= rule.bytes;
      return byPercent || byBytes ? `grew by ${file.delta} bytes (${file.percent ?? '∞'} %)` : null;
    }
  }
}

function nameOf(review: GateReview): string {
  return review.carriedFromBuildId === null ? review.name : `${review.name} (carried from build #${review.carriedFromBuildId})`;
}

export function firstLine(text: string): string {
  return text.split(/\r?\n/).map((line) => line.trim()).find(Boolean) ?? '';
}

/** One line for a commit status: the state and, when not passed, what is missing first. */
export function describeGate(verdict: GateVerdict): string {
  if (verdict.state === 'passed') return `Release gate passed: ${verdict.checks.length} of ${verdict.checks.length} rules met`;
  const open = verdict.checks.filter((c) => c.outcome === (verdict.state === 'failed' ? 'unmet' : 'waiting'));
  return `Release gate ${verdict.state}: ${open.map((c) => c.detail).join('; ')}`;
}
