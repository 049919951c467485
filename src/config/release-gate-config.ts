import { ConfigError } from './config-error';

/**
 * The release gate's policy (issue 38, docs/release-gate.md): the same shape in svc.config.json
 * `releaseGate` and in the dashboard's API, validated by the one parser below so that an error names
 * the rule it is about in both places.
 */

/** Roles whose approvals a policy can ask for (a Viewer never reviews). */
export const GATE_ROLES = ['Admin', 'Developer', 'QA'] as const;
export type GateRole = (typeof GATE_ROLES)[number];

/** What a change rule looks at in the comparison with the previous build of the same app and platform; `device_tests` at the device-test results. */
export const GATE_RULE_KINDS = ['new_permission', 'signing_changed', 'min_sdk_raised', 'size_growth', 'device_tests'] as const;
export type GateRuleKind = (typeof GATE_RULE_KINDS)[number];

/** Differences a policy may let reviews carry across (beyond a byte-identical file, which always carries them). */
export const CARRY_DIFFERENCES = [
  'build_number',
  'version_name',
  'size',
  'permissions',
  'features',
  'abis',
  'min_sdk',
  'target_sdk',
  'signing',
  'minimum_os',
  'frameworks',
  'extensions',
  'usage_descriptions',
  'url_schemes',
  'required_device_capabilities',
] as const;
export type CarryDifference = (typeof CARRY_DIFFERENCES)[number];

/** A triggered change rule either blocks the release or asks for an approval by `role`. */
export type GateRuleEffect = { then: 'block' } | { then: 'require_approval'; role: GateRole };

export type GateRule =
  | ({ when: 'new_permission'; permissions: string[] } & GateRuleEffect)
  | ({ when: 'signing_changed' } & GateRuleEffect)
  | ({ when: 'min_sdk_raised' } & GateRuleEffect)
  | ({ when: 'size_growth'; percent: number | null; bytes: number | null } & GateRuleEffect)
  | { when: 'device_tests' };

export interface GatePolicy {
  /** Approvals needed per role, e.g. { QA: 2, Developer: 1 }. */
  approvals: Partial<Record<GateRole, number>>;
  /** An Admin's approval counts for any role (else only for Admin). */
  adminCountsForAnyRole: boolean;
  /** Four-eyes: the uploader's own approval never counts. */
  excludeUploader: boolean;
  /** Any current "request changes" keeps the gate failed. */
  noRequestChanges: boolean;
  /** PATCH status_label to Done is refused (409) while the gate is not passed. */
  blockDone: boolean;
  /** A rebuild differing from the build before it only in these ways keeps its reviews (marked carried). */
  carryForward: CarryDifference[];
  rules: GateRule[];
}

/** svc.config.json `releaseGate`: a team default and policies per bundle id. */
export interface ReleaseGateConfig {
  default: GatePolicy | null;
  apps: Record<string, GatePolicy>;
}

/** A policy that is not valid; `path` names the setting (`rules[1] (new_permission).permissions`). */
export class GatePolicyError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

const POLICY_KEYS = ['approvals', 'adminCountsForAnyRole', 'excludeUploader', 'noRequestChanges', 'blockDone', 'carryForward', 'rules'];

/** Validates one policy (from the file or the API); throws GatePolicyError naming the setting or rule. */
export function parseGatePolicy(value: unknown): GatePolicy {
  if (!isObject(value)) throw new GatePolicyError('policy', 'must be an object');
  for (const key of Object.keys(value)) if (!POLICY_KEYS.includes(key)) throw new GatePolicyError(key, `is not a policy setting (known: ${POLICY_KEYS.join(', ')})`);
  return {
    approvals: readApprovals(value.approvals),
    adminCountsForAnyRole: readBoolean(value.adminCountsForAnyRole, 'adminCountsForAnyRole', false),
    excludeUploader: readBoolean(value.excludeUploader, 'excludeUploader', false),
    noRequestChanges: readBoolean(value.noRequestChanges, 'noRequestChanges', true),
    blockDone: readBoolean(value.blockDone, 'blockDone', false),
    carryForward: readCarry(value.carryForward),
    rules: readRules(value.rules),
  };
}

/** svc.config.json `releaseGate`; a bad policy stops the relay naming the key and the rule. */
export function readReleaseGateConfig(value: unknown): ReleaseGateConfig {
  if (value === undefined || value === null) return { default: null, apps: {} };
  if (!isObject(value)) throw new ConfigError('releaseGate', 'an object { default?, apps? }', value);
  const parse = (policy: unknown, key: string) => {
    try {
      return parseGatePolicy(policy);
    } catch (err) {
      if (err instanceof GatePolicyError) throw new ConfigError(`${key}.${err.path}`, err.problem);
      throw err;
    }
  };
  const apps: Record<string, GatePolicy> = {};
  if (value.apps !== undefined && !isObject(value.apps)) throw new ConfigError('releaseGate.apps', 'an object keyed by bundle id', value.apps);
  for (const [bundleId, policy] of Object.entries((value.apps ?? {}) as Record<string, unknown>)) apps[bundleId] = parse(policy, `releaseGate.apps.${bundleId}`);
  return { default: value.default === undefined || value.default === null ? null : parse(value.default, 'releaseGate.default'), apps };
}

function readApprovals(value: unknown): Partial<Record<GateRole, number>> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new GatePolicyError('approvals', 'must be an object of role → number, e.g. { "QA": 2 }');
  const approvals: Partial<Record<GateRole, number>> = {};
  for (const [role, count] of Object.entries(value)) {
    if (!(GATE_ROLES as readonly string[]).includes(role)) throw new GatePolicyError(`approvals.${role}`, `is not a role that reviews (${GATE_ROLES.join(', ')})`);
    if (!Number.isInteger(count) || (count as number) < 0 || (count as number) > 20) throw new GatePolicyError(`approvals.${role}`, 'must be a whole number from 0 to 20');
    if ((count as number) > 0) approvals[role as GateRole] = count as number;
  }
  return approvals;
}

function readCarry(value: unknown): CarryDifference[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => !(CARRY_DIFFERENCES as readonly unknown[]).includes(v))) {
    throw new GatePolicyError('carryForward', `must be an array of differences: ${CARRY_DIFFERENCES.join(', ')}`);
  }
  return [...new Set(value as CarryDifference[])];
}

function readRules(value: unknown): GateRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatePolicyError('rules', 'must be an array');
  return value.map((rule, i) => readRule(rule, i));
}

const RULE_KEYS: Record<GateRuleKind, string[]> = {
  new_permission: ['permissions'],
  signing_changed: [],
  min_sdk_raised: [],
  size_growth: ['percent', 'bytes'],
  device_tests: [],
};

function readRule(rule: unknown, index: number): GateRule {
  if (!isObject(rule)) throw new GatePolicyError(`rules[${index}]`, 'must be an object { when, then, role? }');
  const when = rule.when;
  if (typeof when !== 'string' || !(GATE_RULE_KINDS as readonly string[]).includes(when)) {
    throw new GatePolicyError(`rules[${index}].when`, `must be one of ${GATE_RULE_KINDS.join(', ')}`);
  }
  const kind = when as GateRuleKind;
  const path = `rules[${index}] (${kind})`;
  const allowed = ['when', ...RULE_KEYS[kind], ...(kind === 'device_tests' ? [] : ['then', 'role'])];
  for (const key of Object.keys(rule)) if (!allowed.includes(key)) throw new GatePolicyError(`${path}.${key}`, `is not a setting of this rule (known: ${allowed.join(', ')})`);
  if (kind === 'device_tests') return { when: kind };
  const effect = readEffect(rule, path);
  switch (kind) {
    case 'new_permission': {
      const permissions = rule.permissions;
      if (!Array.isArray(permissions) || !permissions.length || permissions.some((p) => typeof p !== 'string' || !p.trim() || p.length > 200)) {
        throw new GatePolicyError(`${path}.permissions`, 'must be a non-empty array of permission names, e.g. ["android.permission.CAMERA"]');
      }
      return { when: kind, permissions: [...new Set(permissions.map((p: string) => p.trim()))], ...effect };
    }
    case 'size_growth': {
      const percent = readPositive(rule.percent, `${path}.percent`);
      const bytes = readPositive(rule.bytes, `${path}.bytes`);
      if (percent === null && bytes === null) throw new GatePolicyError(path, 'needs percent or bytes (or both): the growth that triggers it');
      return { when: kind, percent, bytes, ...effect };
    }
    default:
      return { when: kind, ...effect };
  }
}

function readEffect(rule: Record<string, unknown>, path: string): GateRuleEffect {
  if (rule.then === 'block') {
    if (rule.role !== undefined) throw new GatePolicyError(`${path}.role`, 'only with "then": "require_approval"');
    return { then: 'block' };
  }
  if (rule.then === 'require_approval') {
    if (typeof rule.role !== 'string' || !(GATE_ROLES as readonly string[]).includes(rule.role)) {
      throw new GatePolicyError(`${path}.role`, `must name the role whose approval it needs (${GATE_ROLES.join(', ')})`);
    }
    return { then: 'require_approval', role: rule.role as GateRole };
  }
  throw new GatePolicyError(`${path}.then`, 'must be "block" or "require_approval"');
}

function readPositive(value: unknown, path: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new GatePolicyError(path, 'must be a number above 0');
  return value;
}

function readBoolean(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new GatePolicyError(path, 'must be true or false');
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
