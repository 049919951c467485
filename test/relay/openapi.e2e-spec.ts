import { useTestRelay } from '../support/use-relay';

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; $ref?: string; nullable?: boolean; enum?: unknown[] };
type Operation = {
  responses: Record<string, { content?: { 'application/json': { schema: Schema } } }>;
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  security?: Record<string, string[]>[];
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
    expect(propertiesOf(responseSchema('get', '/api/v1/auth/status', '200'))).toEqual(['canInitialize', 'initialized']);
    expect(propertiesOf(responseSchema('post', '/api/v1/auth/login', '200'))).toEqual(['ok', 'role']);
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
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['pat', 'svc_token']);
    expect(doc.paths['/api/v1/auth/me'].get.security).toEqual([{ svc_token: [] }]);
    expect(doc.paths['/api/v1/auth/status'].get.security).toBeUndefined();
  });
});
