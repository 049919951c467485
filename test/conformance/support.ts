import type { Response } from 'supertest';

/**
 * Strict assertions for the conformance suite: every response shape is checked against spec §2 /
 * §4 / §7 field by field (exact key set, types, formats), so an extra or missing key fails.
 */

/** spec §2 `<timestamp>`: ISO 8601 with milliseconds. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** `YYYY-MM-DD HH:MM:SS` (webhook created_at, schedule-deletion delete_after). */
export const SQL_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
/** Agent samples: ISO 8601 without milliseconds. */
export const ISO_NO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

type FieldRule =
  | 'number'
  | 'string'
  | 'boolean'
  | 'iso'
  | 'iso|null'
  | 'string|null'
  | 'number|null'
  | 'sql-datetime'
  | 'iso-no-ms'
  | RegExp
  | readonly unknown[]
  | ((value: unknown) => void);

export type Shape = Record<string, FieldRule>;

function checkField(key: string, value: unknown, rule: FieldRule): void {
  const where = `field ${key} = ${JSON.stringify(value)}`;
  if (typeof rule === 'function') return rule(value);
  if (rule instanceof RegExp) {
    expect({ where, ok: typeof value === 'string' && rule.test(value) }).toEqual({ where, ok: true });
    return;
  }
  if (Array.isArray(rule)) {
    expect({ where, ok: rule.includes(value) }).toEqual({ where, ok: true });
    return;
  }
  const ok = (() => {
    switch (rule) {
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'string':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'iso':
        return typeof value === 'string' && ISO_MS.test(value);
      case 'iso|null':
        return value === null || (typeof value === 'string' && ISO_MS.test(value));
      case 'string|null':
        return value === null || typeof value === 'string';
      case 'number|null':
        return value === null || (typeof value === 'number' && Number.isFinite(value));
      case 'sql-datetime':
        return typeof value === 'string' && SQL_DATETIME.test(value);
      case 'iso-no-ms':
        return typeof value === 'string' && ISO_NO_MS.test(value);
      default:
        return false;
    }
  })();
  expect({ where, rule, ok }).toEqual({ where, rule, ok: true });
}

/** The object has exactly the shape's keys (no more, no fewer) and each value follows its rule. */
export function expectShape(value: unknown, shape: Shape): void {
  expect(value).not.toBeNull();
  expect(typeof value).toBe('object');
  expect(Array.isArray(value)).toBe(false);
  const record = value as Record<string, unknown>;
  expect(Object.keys(record).sort()).toEqual(Object.keys(shape).sort());
  for (const [key, rule] of Object.entries(shape)) checkField(key, record[key], rule);
}

/** spec §7: JSON `{ "error": string }` and nothing else, with the given status (and message). */
export function expectError(res: Response, status: number, message?: string | RegExp): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expectShape(res.body, { error: 'string' });
  expect(res.body.error.length).toBeGreaterThan(0);
  if (typeof message === 'string') expect(res.body.error).toBe(message);
  else if (message) expect(res.body.error).toMatch(message);
}

/** spec §7 success shapes: 204 with an empty body. */
export function expectNoContent(res: Response): void {
  expect(res.status).toBe(204);
  expect(res.text ?? '').toBe('');
  expect(res.headers['content-length'] ?? '0').toBe('0');
}

/** 200 `{ ok: true }` exactly. */
export function expectOk(res: Response, status = 200): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { ok: true } });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

export const ROLE_VALUES = ['Admin', 'Developer', 'QA', 'Viewer'] as const;
export const STATUS_VALUES = ['Backlog', 'In Progress', 'Done', 'Rejected'] as const;

const FLAG_KINDS = ['new_permission', 'size_jump', 'min_sdk_raised', 'min_os_raised', 'abi_removed', 'signing_changed', 'usage_description_added'];

/** spec §2 Build (GET /builds items, GET /builds/:id). */
export const BUILD_SHAPE: Shape = {
  id: 'number',
  app_id: 'number',
  name: 'string',
  version_name: 'string',
  build_number: 'string',
  version_label: 'string|null',
  status_label: [...STATUS_VALUES, null],
  platform: ['ios', 'android'],
  bundle_id: 'string',
  uploaded_at: 'iso',
  completed_at: 'iso|null',
  delete_after: 'iso|null',
  // Beyond spec §2, deliberately (docs/builds.md "Uploader and icon", "Flagged builds"): additive, for the dashboard's inbox.
  uploaded_by: 'string|null',
  uploaded_by_id: 'number|null',
  icon_url: (value) => expect(value === null || (typeof value === 'string' && /^\/api\/v1\/builds\/\d+\/icon$/.test(value))).toBe(true),
  // The flags stored at upload against the build before it ([] when none): each { kind, reason, subject, watched }.
  flags: (value) => {
    expect(Array.isArray(value)).toBe(true);
    for (const flag of value as unknown[]) expectShape(flag, { kind: FLAG_KINDS, reason: 'string', subject: 'string|null', watched: 'boolean' });
  },
  // Where the build came from, as its upload said (docs/builds.md "Provenance"); null when it said nothing.
  provenance: (value) => {
    if (value === null) return;
    expectShape(value, { commit: 'string|null', branch: 'string|null', repository: 'string|null', pull_request: 'number|null', ci_url: 'string|null', changelog: 'string|null' });
  },
};

/** spec §4 POST /builds response. */
export const BUILD_SUMMARY_SHAPE: Shape = {
  id: 'number',
  app_id: 'number',
  name: 'string',
  version_name: 'string',
  build_number: 'string',
  bundle_id: 'string',
  status_label: [...STATUS_VALUES, null],
  platform: ['ios', 'android'],
  uploaded_at: 'iso',
};

/** spec §2 App with the latest-build summary (GET /apps items) of an app that has builds. */
export const APP_LIST_ITEM_SHAPE: Shape = {
  id: 'number',
  name: 'string',
  bundle_id_key: 'string',
  platform: ['ios', 'android', 'both'],
  created_at: 'iso',
  latest_build_id: 'number',
  version_name: 'string',
  build_number: 'string',
  status_label: [...STATUS_VALUES, null],
  latest_uploaded_at: 'iso',
  // Beyond spec §2, deliberately (docs/builds.md "App icons"): the Apps page shows icons and counts.
  build_count: 'number',
  icon_url: (value) => expect(value === null || (typeof value === 'string' && /^\/api\/v1\/apps\/\d+\/icon$/.test(value))).toBe(true),
};

export const ATTACHMENT_SHAPE: Shape = {
  id: 'number',
  file_path: /^\/uploads\/comments\/[^/]+$/,
  mime: 'string',
};

export const COMMENT_LIST_SHAPE: Shape = {
  id: 'number',
  body: 'string',
  created_at: 'iso',
  author: 'string|null',
  // Beyond spec §2, deliberately (docs/dashboard.md "Roles"): who may delete it, by id rather than by name.
  author_id: 'number|null',
  authorAvatarUrl: 'string|null',
  attachments: (value) => {
    expect(Array.isArray(value)).toBe(true);
    for (const a of value as unknown[]) expectShape(a, ATTACHMENT_SHAPE);
  },
};

export const COMMENT_CREATED_SHAPE: Shape = { id: 'number', body: 'string', created_at: 'iso', author: 'string|null' };

export const MEMBER_SHAPE: Shape = {
  id: 'number',
  email: 'string',
  display_name: 'string',
  role: ROLE_VALUES,
  joined_at: 'iso',
  // Beyond spec §2, deliberately (docs/team.md): the team list shows avatars.
  avatar_url: 'string|null',
};

export const ME_SHAPE: Shape = {
  id: 'number',
  email: 'string',
  displayName: 'string',
  avatarUrl: 'string|null',
  role: ROLE_VALUES,
};

export const TOKEN_ITEM_SHAPE: Shape = {
  id: 'number',
  name: 'string',
  scope: 'string',
  last_used_at: 'iso',
  expires_at: 'iso|null',
  created_at: 'iso',
};

export const WEBHOOK_SHAPE: Shape = {
  id: 'number',
  url: 'string',
  enabled: 'boolean',
  has_secret: 'boolean',
  created_at: 'sql-datetime',
};

export const RECORDING_SHAPE: Shape = {
  id: 'number',
  url: /^\/api\/v1\/recordings\/[^/]+$/,
  sessionId: 'string',
  fileSize: 'number',
  mime: 'string',
  createdAt: 'iso',
  expiresAt: 'iso',
};

export const TEAM_SETTINGS_SHAPE: Shape = { team_name: 'string', logo_url: 'string|null' };

export const RELAY_HOST_SHAPE: Shape = {
  lanHost: 'string|null',
  port: 'number',
  publicBaseUrl: 'string|null',
  agentRelayUrl: 'string|null',
};

export const SAMPLE_SHAPE: Shape = { cpu_percent: 'number', mem_percent: 'number', recorded_at: 'iso-no-ms' };

export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;
