import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestRelay } from '../support/use-relay';

type Schema = {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
  nullable?: boolean;
  enum?: unknown[];
};
type Content = Record<string, { schema: Schema }>;
type Operation = {
  responses: Record<string, { content?: Content }>;
  requestBody?: { content: Content };
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  security?: Record<string, string[]>[];
};

/** `METHOD /api/v1/...` of every route in the reviewed route-access snapshot, in OpenAPI path syntax. */
function snapshotApiRoutes(): string[] {
  const snapshot = readFileSync(join(__dirname, '../access/__snapshots__/route-access.e2e-spec.ts.snap'), 'utf8');
  return [...snapshot.matchAll(/^(GET|POST|PATCH|PUT|DELETE) (\/api\/v1\/\S+)/gm)].map(
    ([, method, path]) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`,
  );
}

/** 2xx bodies that are files, not JSON: the content types each one declares. */
/** What a build's file is served as to someone without an account (a share link, a latest-build link). */
const SHARED_BUILD_FILE = ['application/vnd.android.package-archive', 'application/zip', 'application/gzip', 'application/octet-stream'];
const BINARY_RESPONSES: Record<string, string[]> = {
  'GET /api/v1/builds/{id}/download': [
    'application/vnd.android.package-archive',
    'application/zip',
    'application/gzip',
    'application/octet-stream',
  ],
  'GET /api/v1/recordings/{filename}': ['video/webm', 'video/x-matroska', 'video/mp4', 'video/quicktime'],
  'GET /api/v1/sessions/{sessionId}/screenshot': ['image/png', 'image/jpeg'],
  'GET /uploads/{path}': ['image/png', 'image/jpeg', 'image/webp'],
  'GET /api/v1/builds/{id}/icon': ['image/png', 'image/webp'],
  'GET /api/v1/apps/{id}/icon': ['image/png', 'image/webp'],
  'GET /metrics': ['text/plain'],
  'GET /api/v1/audit/export': ['application/x-ndjson', 'text/csv'],
  'GET /install/latest/{token}/download': SHARED_BUILD_FILE,
  'GET /api/v1/share/{token}/download': SHARED_BUILD_FILE,
};
/** Pages a person opens (docs/builds.md "Share links"): every answer, refusals too, is text/html. */
const HTML_PAGES = ['GET /install/{token}', 'POST /install/{token}', 'GET /install/latest/{token}', 'GET /unsubscribe/{token}', 'POST /unsubscribe/{token}'];
/** The install page's own script (docs/builds.md "Links a team can re-send"): JavaScript, not JSON. */
const SCRIPTS = ['GET /install/script/local-times.js'];
/**
 * The browser's trip through the OpenID provider (docs/identity.md): success is a 302, a refusal is
 * a page (text/html); only the 404 of a relay without `sso.oidc` is the API's { error }.
 */
const SIGN_IN_REDIRECTS = ['GET /api/v1/auth/oidc/login', 'GET /api/v1/auth/oidc/callback'];
/**
 * Operations that never succeed, by design: the MCP endpoint is stateless Streamable HTTP, whose
 * specification has GET (no event stream) and DELETE (no session) answer 405 (docs/mcp.md).
 */
const ALWAYS_405 = ['GET /api/v1/mcp', 'DELETE /api/v1/mcp'];
/**
 * tus answers whose meaning is in their headers, with no body (docs/builds.md "Resumable uploads"):
 * the creation (Location) and a PATCH that did not complete the upload (Upload-Offset).
 */
const HEADER_ONLY_ANSWERS = ['POST /api/v1/uploads/builds 201', 'PATCH /api/v1/uploads/builds/{id} 204'];
/** Server-sent event streams (docs/dashboard.md): text/event-stream, payload schemas listed per event. */
const EVENT_STREAMS = ['GET /api/v1/events'];
/** JSON 2xx bodies that are arrays of strings, not objects (spec §4). */
const STRING_ARRAY_RESPONSES = ['GET /api/v1/logs', 'GET /api/v1/agents'];
/** Multipart bodies (spec §4) and the file field each declares. */
const MULTIPART_BODIES: Record<string, string> = {
  'POST /api/v1/builds': 'file',
  'POST /api/v1/comments': 'attachment',
  'POST /api/v1/invitations/accept': 'avatar',
  'PATCH /api/v1/profile': 'avatar',
  'PATCH /api/v1/settings': 'logo',
  'POST /api/v1/recordings/upload': 'file',
};

describe('OpenAPI', () => {
  const ctx = useTestRelay();
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  };
  beforeAll(async () => {
    const res = await ctx.relay.http().get('/api/v1/openapi.json').expect(200).expect('Content-Type', /json/);
    doc = res.body;
  });

  const resolve = (schema: Schema): Schema =>
    schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  const responseSchema = (method: string, path: string, status: string) =>
    resolve(doc.paths[path][method].responses[status].content!['application/json'].schema);
  const propertiesOf = (schema: Schema) => Object.keys(schema.properties ?? {}).sort();
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, method, operation })),
    );
  /** The object schema of a JSON body, or of its items when it is an array. */
  const objectOf = (schema: Schema): Schema => {
    const resolved = resolve(schema);
    return resolved.type === 'array' ? resolve(resolved.items!) : resolved;
  };

  it('browsable docs at /api/docs', async () => {
    const res = await ctx.relay.http().get('/api/docs').expect(200);
    expect(res.text).toMatch(/swagger/i);
  });

  it('describes every foundation endpoint', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        'GET /api/v1/auth/status',
        'POST /api/v1/auth/init',
        'POST /api/v1/auth/login',
        'POST /api/v1/auth/logout',
        'GET /api/v1/auth/me',
        'POST /api/v1/auth/change-password',
        'GET /api/v1/tokens',
        'POST /api/v1/tokens',
        'DELETE /api/v1/tokens/{id}',
        'GET /api/v1/relay/host',
        'GET /api/v1/logs',
      ]),
    );
  });

  it('carries the spec’s response shapes', () => {
    // `methods` only with single sign-on configured (docs/identity.md): optional, so the spec's two stay required.
    expect(propertiesOf(responseSchema('get', '/api/v1/auth/status', '200'))).toEqual(['canInitialize', 'initialized', 'methods']);
    expect(responseSchema('get', '/api/v1/auth/status', '200').required).toEqual(['initialized', 'canInitialize']);
    // Beyond the spec, optional: a member with two-factor sign-in gets a challenge instead of a session (docs/auth.md).
    expect(propertiesOf(responseSchema('post', '/api/v1/auth/login', '200'))).toEqual(['challenge', 'ok', 'role', 'two_factor_required']);
    expect(responseSchema('post', '/api/v1/auth/login', '200').required).toEqual(['ok', 'role']);
    expect(responseSchema('post', '/api/v1/auth/login', '200').properties!.role.enum).toEqual(['Admin', 'Developer', 'QA', 'Viewer']);
    expect(propertiesOf(responseSchema('post', '/api/v1/auth/init', '201'))).toEqual(['ok']);
    expect(propertiesOf(responseSchema('get', '/api/v1/auth/me', '200'))).toEqual(['avatarUrl', 'displayName', 'email', 'id', 'role']);
    expect(responseSchema('get', '/api/v1/auth/me', '200').properties!.avatarUrl.nullable).toBe(true);
    const list = responseSchema('get', '/api/v1/tokens', '200');
    expect(list.type).toBe('array');
    expect(propertiesOf(resolve(list.items!))).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scope']);
    expect(propertiesOf(responseSchema('post', '/api/v1/tokens', '201'))).toEqual(['token']);
    expect(doc.paths['/api/v1/tokens/{id}'].delete.responses['204']).toBeDefined();
    expect(propertiesOf(responseSchema('get', '/api/v1/relay/host', '200'))).toEqual(['agentRelayUrl', 'lanHost', 'port', 'publicBaseUrl']);
    // beyond the spec (docs/dashboard.md "Files checked before they are sent"), so /relay/host keeps the spec's four fields
    expect(propertiesOf(responseSchema('get', '/api/v1/relay/limits', '200'))).toEqual(['max_build_bytes']);
    expect(responseSchema('get', '/api/v1/logs', '200')).toEqual({ type: 'array', items: { type: 'string' } });
    expect(propertiesOf(responseSchema('post', '/api/v1/auth/login', '429'))).toEqual(['error']);
  });

  it('carries the request bodies', () => {
    const body = (method: string, path: string) => resolve(doc.paths[path][method].requestBody!.content['application/json'].schema);
    expect(propertiesOf(body('post', '/api/v1/auth/init'))).toEqual(['email', 'password']);
    expect(propertiesOf(body('post', '/api/v1/auth/login'))).toEqual(['email', 'password']);
    expect(propertiesOf(body('post', '/api/v1/auth/change-password'))).toEqual(['currentPassword', 'newPassword']);
    expect(propertiesOf(body('post', '/api/v1/tokens'))).toEqual(['expires_in_days', 'name', 'scope']);
  });

  it('names the credentials each endpoint takes', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['pat', 'scim', 'svc_token']);
    expect(doc.paths['/api/v1/auth/me'].get.security).toEqual([{ svc_token: [] }]);
    expect(doc.paths['/api/v1/auth/status'].get.security).toBeUndefined();
  });

  it('describes every /api/v1 route of the route-access snapshot', () => {
    const routes = snapshotApiRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const documented = operations().map((o) => o.key);
    expect(routes.filter((route) => !documented.includes(route))).toEqual([]);
  });

  it('gives every JSON 2xx answer of a GET/POST/PATCH a schema with properties; the exceptions are listed', () => {
    const problems: string[] = [];
    for (const { key, method, operation } of operations()) {
      if (!['get', 'post', 'patch'].includes(method) || ALWAYS_405.includes(key)) continue;
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      if (SIGN_IN_REDIRECTS.includes(key)) {
        if (!('302' in operation.responses) || success.length) problems.push(`${key}: not a 302 redirect`);
        continue;
      }
      if (success.length === 0) problems.push(`${key}: no 2xx response`);
      for (const [status, response] of success) {
        const types = Object.keys(response.content ?? {});
        if (HEADER_ONLY_ANSWERS.includes(`${key} ${status}`)) {
          if (types.length) problems.push(`${key} ${status}: a body where tus sends headers only`);
          continue;
        }
        if (HTML_PAGES.includes(key)) continue;
        if (SCRIPTS.includes(key)) {
          if (JSON.stringify(types) !== JSON.stringify(['text/javascript'])) problems.push(`${key} ${status}: ${types}`);
          continue;
        }
        if (EVENT_STREAMS.includes(key)) {
          if (JSON.stringify(types) !== JSON.stringify(['text/event-stream'])) problems.push(`${key} ${status}: ${types}`);
          continue;
        }
        if (BINARY_RESPONSES[key]) {
          if (JSON.stringify(types) !== JSON.stringify(BINARY_RESPONSES[key])) problems.push(`${key} ${status}: ${types}`);
          for (const type of types) {
            if (response.content![type].schema.format !== 'binary') problems.push(`${key} ${status} ${type}: not binary`);
          }
          continue;
        }
        const json = response.content?.['application/json'];
        if (!json) {
          problems.push(`${key} ${status}: no JSON schema`);
        } else if (STRING_ARRAY_RESPONSES.includes(key)) {
          if (JSON.stringify(json.schema) !== JSON.stringify({ type: 'array', items: { type: 'string' } })) {
            problems.push(`${key} ${status}: not an array of strings`);
          }
        } else if (propertiesOf(objectOf(json.schema)).length === 0) {
          problems.push(`${key} ${status}: schema without properties`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Every listed exception is a real operation, so the lists cannot go stale.
    const keys = operations().map((o) => o.key);
    expect(keys).toEqual(expect.arrayContaining([...Object.keys(BINARY_RESPONSES), ...STRING_ARRAY_RESPONSES, ...ALWAYS_405, ...EVENT_STREAMS, ...HTML_PAGES, ...SCRIPTS, ...SIGN_IN_REDIRECTS]));
    expect(keys).toEqual(expect.arrayContaining(HEADER_ONLY_ANSWERS.map((answer) => answer.replace(/ \d+$/, ''))));
  });

  it('answers DELETEs with 204 and no body, or 200 { ok: true }', () => {
    for (const { key, method, operation } of operations()) {
      if (method !== 'delete' || ALWAYS_405.includes(key)) continue;
      const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect({ key, success }).toEqual({ key, success: [expect.stringMatching(/^20[04]$/)] });
      if (success[0] === '204') expect(operation.responses['204'].content).toBeUndefined();
      else expect(propertiesOf(responseSchema('delete', key.slice('DELETE '.length), '200'))).toEqual(['ok']);
    }
  });

  it('documents the { error } answers, and 401 wherever a credential is needed', () => {
    for (const { key, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (HTML_PAGES.includes(key) || (SIGN_IN_REDIRECTS.includes(key) && Number(status) >= 400 && status !== '404')) {
          expect({ key, status, types: Object.keys(response.content ?? {}) }).toEqual({ key, status, types: ['text/html'] });
          continue;
        }
        if (Number(status) < 400) continue;
        expect({ key, status, schema: response.content?.['application/json']?.schema }).toEqual({
          key,
          status,
          schema: { $ref: '#/components/schemas/ErrorResponse' },
        });
      }
      if (operation.security) expect({ key, has401: '401' in operation.responses }).toEqual({ key, has401: true });
    }
  });

  it('carries the spec’s build shapes and list filters', () => {
    const summaryFields = ['app_id', 'build_number', 'bundle_id', 'id', 'name', 'platform', 'status_label', 'uploaded_at', 'version_name'];
    // The last five: beyond the spec, deliberately and only on GET (docs/builds.md "Uploader and icon", "Flagged builds", "Provenance").
    const buildFields = [...summaryFields, 'completed_at', 'delete_after', 'version_label', 'uploaded_by', 'uploaded_by_id', 'icon_url', 'flags', 'provenance'].sort();
    const build = responseSchema('get', '/api/v1/builds/{id}', '200');
    expect(propertiesOf(build)).toEqual(buildFields);
    expect(build.properties!.status_label).toMatchObject({
      enum: ['Backlog', 'In Progress', 'Done', 'Rejected'],
      nullable: true,
    });
    expect(build.properties!.platform.enum).toEqual(['ios', 'android']);
    expect(build.properties!.uploaded_at.format).toBe('date-time');
    expect(build.properties!.delete_after).toMatchObject({ format: 'date-time', nullable: true });
    const list = responseSchema('get', '/api/v1/builds', '200');
    expect(propertiesOf(list)).toEqual(['items', 'total']);
    expect(propertiesOf(resolve(list.properties!.items.items!))).toEqual(buildFields);
    const summary = responseSchema('post', '/api/v1/builds', '201');
    expect(propertiesOf(summary)).toEqual(summaryFields);
    // tus resumable uploads (docs/builds.md): the completing PATCH answers the same summary.
    expect(propertiesOf(responseSchema('patch', '/api/v1/uploads/builds/{id}', '201'))).toEqual(summaryFields);
    const tusOperations = Object.keys(doc.paths['/api/v1/uploads/builds']).concat(Object.keys(doc.paths['/api/v1/uploads/builds/{id}']));
    expect(tusOperations.sort()).toEqual(['delete', 'head', 'options', 'patch', 'post']);
    const creationHeaders = doc.paths['/api/v1/uploads/builds'].post.parameters!.filter((p) => p.in === 'header').map((p) => p.name);
    expect(creationHeaders.sort()).toEqual(['Tus-Resumable', 'Upload-Length', 'Upload-Metadata']);
    const query = doc.paths['/api/v1/builds'].get.parameters!.filter((p) => p.in === 'query');
    // flagged, search, branch, commit, pull_request and gate: beyond the spec (docs/builds.md "Flagged builds", "Search", "Provenance"; docs/release-gate.md).
    expect(query.map((p) => p.name).sort()).toEqual(['app_id', 'branch', 'commit', 'dir', 'flagged', 'gate', 'limit', 'page', 'platform', 'pull_request', 'q', 'search', 'sort', 'status']);
    expect(query.find((p) => p.name === 'gate')!.schema!.enum).toEqual(['pending', 'passed', 'failed']);
    expect(query.find((p) => p.name === 'sort')!.schema!.enum).toEqual(['uploaded_at', 'version_name', 'status_label']);
    const scheduled = responseSchema('post', '/api/v1/builds/{id}/schedule-deletion', '200');
    expect(propertiesOf(scheduled)).toEqual(['delete_after', 'ok']);
    expect(propertiesOf(responseSchema('get', '/api/v1/apps', '200'))).toEqual(['items']);
    expect(propertiesOf(objectOf(responseSchema('get', '/api/v1/apps', '200').properties!.items))).toEqual([
      'build_count', 'build_number', 'bundle_id_key', 'created_at', 'icon_url', 'id', 'latest_build_id', 'latest_uploaded_at', 'name', 'platform',
      'status_label', 'version_name',
    ]);
    expect(propertiesOf(responseSchema('post', '/api/v1/apps', '201'))).toEqual(['id', 'ok']);
  });

  it('carries the spec’s webhook, team, comment, recording, agent and session shapes', () => {
    const webhook = responseSchema('post', '/api/v1/webhooks', '201');
    expect(propertiesOf(webhook)).toEqual(['created_at', 'enabled', 'has_secret', 'id', 'url']);
    expect(webhook.properties).not.toHaveProperty('secret');
    expect(propertiesOf(responseSchema('get', '/api/v1/webhooks', '200'))).toEqual(['webhooks']);
    expect(responseSchema('patch', '/api/v1/webhooks/{id}', '200')).toEqual(webhook);
    // The test delivery answers with one attempt, the shape of a delivery log item.
    const deliveryItem = objectOf(responseSchema('get', '/api/v1/webhooks/{id}/deliveries', '200').properties!.deliveries);
    expect(responseSchema('post', '/api/v1/webhooks/{id}/test', '200')).toEqual(deliveryItem);
    expect(propertiesOf(objectOf(responseSchema('get', '/api/v1/team/members', '200')))).toEqual([
      'avatar_url', 'display_name', 'email', 'id', 'joined_at', 'role',
    ]);
    expect(propertiesOf(responseSchema('post', '/api/v1/team/invite', '201'))).toEqual(['emailSent', 'inviteUrl', 'token']);
    expect(propertiesOf(responseSchema('post', '/api/v1/team/members/{id}/send-reset', '200'))).toEqual([
      'emailSent', 'ok', 'resetUrl', 'token',
    ]);
    expect(propertiesOf(responseSchema('get', '/api/v1/invitations/verify', '200'))).toEqual(['email', 'invited_by', 'role', 'team_name']);
    expect(propertiesOf(objectOf(responseSchema('get', '/api/v1/team/invitations', '200')))).toEqual([
      'created_at', 'email', 'expires_at', 'id', 'role',
    ]);
    expect(doc.paths['/api/v1/team/invitations/{id}'].delete.responses['204']).toBeDefined();
    const comment = objectOf(responseSchema('get', '/api/v1/comments', '200'));
    // author_id: beyond the spec, deliberately (docs/dashboard.md "Roles").
    expect(propertiesOf(comment)).toEqual(['attachments', 'author', 'authorAvatarUrl', 'author_id', 'body', 'created_at', 'id']);
    expect(propertiesOf(objectOf(comment.properties!.attachments))).toEqual(['file_path', 'id', 'mime']);
    const created = responseSchema('post', '/api/v1/comments', '201');
    expect(propertiesOf(created)).toEqual(['author', 'body', 'created_at', 'id']);
    expect(created.properties!.author.nullable).toBe(true);
    expect(propertiesOf(responseSchema('get', '/api/v1/settings', '200'))).toEqual(['logo_url', 'team_name']);
    expect(propertiesOf(responseSchema('post', '/api/v1/recordings/upload', '200'))).toEqual(['url']);
    expect(propertiesOf(objectOf(responseSchema('get', '/api/v1/recordings', '200')))).toEqual([
      'createdAt', 'expiresAt', 'fileSize', 'id', 'mime', 'sessionId', 'url',
    ]);
    expect(propertiesOf(objectOf(responseSchema('get', '/api/v1/agents/{name}/resources', '200')))).toEqual([
      'cpu_percent', 'mem_percent', 'recorded_at',
    ]);
    const element = objectOf(responseSchema('get', '/api/v1/sessions/{sessionId}/ui-tree', '200').properties!.elements);
    expect(propertiesOf(element)).toEqual(['enabled', 'frame', 'identifier', 'label', 'role']);
    expect(propertiesOf(resolve(element.properties!.frame))).toEqual(['height', 'width', 'x', 'y']);
  });

  it('declares the multipart bodies with their binary file field', () => {
    for (const [key, fileField] of Object.entries(MULTIPART_BODIES)) {
      const [method, path] = key.split(' ');
      const content = doc.paths[path][method.toLowerCase()].requestBody?.content ?? {};
      expect({ key, types: Object.keys(content) }).toEqual({ key, types: ['multipart/form-data'] });
      const form = resolve(content['multipart/form-data'].schema);
      expect({ key, file: form.properties![fileField] }).toEqual({
        key,
        file: expect.objectContaining({ type: 'string', format: 'binary' }),
      });
    }
    const form = (key: string) => {
      const [method, path] = key.split(' ');
      return resolve(doc.paths[path][method.toLowerCase()].requestBody!.content['multipart/form-data'].schema);
    };
    // The spec's fields and, beyond it, the provenance (docs/builds.md "Provenance").
    expect(propertiesOf(form('POST /api/v1/builds'))).toEqual(['app_id', 'branch', 'changelog', 'ci_url', 'commit', 'file', 'label', 'platform', 'pull_request', 'repository', 'status']);
    expect(form('POST /api/v1/builds').required).toEqual(['file']);
    expect(form('POST /api/v1/comments').required).toEqual(['build_id', 'body']);
    expect(form('POST /api/v1/invitations/accept').required).toEqual(['token', 'password']);
    expect(propertiesOf(form('PATCH /api/v1/profile'))).toEqual(['avatar', 'display_name']);
    expect(propertiesOf(form('PATCH /api/v1/settings'))).toEqual(['logo', 'team_name']);
  });

  it('names the query parameters the spec lists', () => {
    const query = (method: string, path: string) =>
      (doc.paths[path][method].parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();
    expect(query('get', '/api/v1/comments')).toEqual(['build_id']);
    expect(query('get', '/api/v1/recordings')).toEqual(['buildId']);
    expect(query('post', '/api/v1/recordings/upload')).toEqual(['buildId', 'sessionId']);
    expect(query('get', '/api/v1/agents/{name}/resources')).toEqual(['range']);
    expect(query('get', '/api/v1/sessions/{sessionId}/screenshot')).toEqual(['format']);
    expect(query('get', '/api/v1/invitations/verify')).toEqual(['token']);
    expect(query('get', '/api/v1/auth/reset-password/verify')).toEqual(['token']);
    expect(query('get', '/api/v1/logs')).toEqual(['lines']);
  });
});
