import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { SQL_DATETIME } from './support/webhook-helpers';

const LAN_URL = 'http://192.168.1.10:8080/h';

describe('webhooks API (spec §4 Webhooks)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let developer: TestMember;
  let viewer: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    developer = await members.member('Developer');
    viewer = await members.member('Viewer');
  });
  afterAll(() => relay.close());

  const create = (member: TestMember, body: object) => members.as(member, 'post', '/api/v1/webhooks').send(body);

  it('POST creates a webhook: 201, enabled by default, has_secret, created_at as YYYY-MM-DD HH:MM:SS', async () => {
    // Stamped by the relay clock between the request and its answer (to the second, as the format is).
    const before = Math.floor(relay.clock.nowMs() / 1000) * 1000;
    const res = await create(developer, { url: LAN_URL, secret: 's3cret-value' }).expect(201);
    const after = relay.clock.nowMs();
    expect(res.body).toEqual({ id: expect.any(Number), url: LAN_URL, enabled: true, has_secret: true, created_at: expect.any(String) });
    expect(res.body.created_at).toMatch(SQL_DATETIME);
    const created = new Date(res.body.created_at.replace(' ', 'T') + 'Z').getTime();
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(after);
    expect(JSON.stringify(res.body)).not.toContain('s3cret-value');

    const unsigned = await create(developer, { url: 'http://10.0.0.5/', enabled: false }).expect(201);
    expect(unsigned.body).toMatchObject({ url: 'http://10.0.0.5/', enabled: false, has_secret: false });
    const nullSecret = await create(developer, { url: 'http://172.16.3.4/', secret: null }).expect(201);
    expect(nullSecret.body.has_secret).toBe(false);
  });

  it('GET lists every webhook as { webhooks: [...] } without secrets', async () => {
    const res = await members.as(admin, 'get', '/api/v1/webhooks').expect(200);
    expect(Object.keys(res.body)).toEqual(['webhooks']);
    expect(res.body.webhooks.length).toBeGreaterThanOrEqual(3);
    for (const hook of res.body.webhooks) {
      expect(Object.keys(hook).sort()).toEqual(['created_at', 'enabled', 'has_secret', 'id', 'url']);
      expect(hook.created_at).toMatch(SQL_DATETIME);
    }
    expect(JSON.stringify(res.body)).not.toContain('s3cret-value');
  });

  it('PATCH changes only the fields sent; secret:null removes the secret', async () => {
    const { body: hook } = await create(developer, { url: LAN_URL, secret: 'first' }).expect(201);
    const path = `/api/v1/webhooks/${hook.id}`;

    const disabled = await members.as(developer, 'patch', path).send({ enabled: false }).expect(200);
    expect(disabled.body).toEqual({ ...hook, enabled: false });

    const moved = await members.as(developer, 'patch', path).send({ url: 'http://10.1.2.3:9000/x' }).expect(200);
    expect(moved.body).toEqual({ ...hook, enabled: false, url: 'http://10.1.2.3:9000/x' });

    const unsigned = await members.as(developer, 'patch', path).send({ secret: null }).expect(200);
    expect(unsigned.body).toEqual({ ...hook, enabled: false, url: 'http://10.1.2.3:9000/x', has_secret: false });

    const resigned = await members.as(developer, 'patch', path).send({ secret: 'second', enabled: true }).expect(200);
    expect(resigned.body).toEqual({ ...hook, url: 'http://10.1.2.3:9000/x', has_secret: true, enabled: true });

    const listed = (await members.as(developer, 'get', '/api/v1/webhooks').expect(200)).body.webhooks.find(
      (w: { id: number }) => w.id === hook.id,
    );
    expect(listed).toEqual(resigned.body);
  });

  it('PATCH with nothing to update is 400; unknown ids are 404; bad ids are 400', async () => {
    const { body: hook } = await create(developer, { url: LAN_URL }).expect(201);
    for (const body of [{}, { unknown: 1 }]) {
      const res = await members.as(developer, 'patch', `/api/v1/webhooks/${hook.id}`).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/^Nothing to update/) });
    }
    const missing = await members.as(developer, 'patch', '/api/v1/webhooks/999999').send({ enabled: false });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Webhook not found' });
    const gone = await members.as(developer, 'delete', '/api/v1/webhooks/999999');
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Webhook not found' });
    const log = await members.as(developer, 'get', '/api/v1/webhooks/999999/deliveries');
    expect(log.status).toBe(404);
    for (const id of ['abc', '0', '-1', '1.5']) {
      const res = await members.as(developer, 'patch', `/api/v1/webhooks/${id}`).send({ enabled: false });
      expect([id, res.status, res.body]).toEqual([id, 400, { error: 'id must be a positive integer' }]);
    }
  });

  it('DELETE answers 200 { ok: true } and the webhook is gone', async () => {
    const { body: hook } = await create(developer, { url: LAN_URL }).expect(201);
    const res = await members.as(developer, 'delete', `/api/v1/webhooks/${hook.id}`).expect(200);
    expect(res.body).toEqual({ ok: true });
    const list = await members.as(developer, 'get', '/api/v1/webhooks').expect(200);
    expect(list.body.webhooks.map((w: { id: number }) => w.id)).not.toContain(hook.id);
    await members.as(developer, 'delete', `/api/v1/webhooks/${hook.id}`).expect(404);
    await members.as(developer, 'patch', `/api/v1/webhooks/${hook.id}`).send({ enabled: true }).expect(404);
  });

  it.each<[string, object, RegExp]>([
    ['missing url', {}, /^url is required$/],
    ['url not a string', { url: 42 }, /^url is required$/],
    ['empty url', { url: '   ' }, /^url is required$/],
    ['secret empty', { url: LAN_URL, secret: '' }, /^secret must be a non-empty string, or null/],
    ['secret a number', { url: LAN_URL, secret: 7 }, /^secret must be a non-empty string, or null/],
    ['secret too long', { url: LAN_URL, secret: 'x'.repeat(1025) }, /^secret must be at most 1024/],
    ['enabled a string', { url: LAN_URL, enabled: 'yes' }, /^enabled must be true or false$/],
    ['enabled null', { url: LAN_URL, enabled: null }, /^enabled must be true or false$/],
    ['url too long', { url: `http://10.0.0.5/${'a'.repeat(2100)}` }, /^url must be at most 2048/],
  ])('POST with %s is 400 with a message', async (_, body, message) => {
    const res = await create(developer, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it.each<[string, object, RegExp]>([
    ['url null', { url: null }, /^url must be a non-empty string$/],
    ['url empty', { url: '' }, /^url must be a non-empty string$/],
    ['enabled null', { enabled: null }, /^enabled must be true or false$/],
    ['secret empty', { secret: '' }, /^secret must be a non-empty string, or null/],
  ])('PATCH with %s is 400 with a message', async (_, body, message) => {
    const { body: hook } = await create(developer, { url: LAN_URL }).expect(201);
    const res = await members.as(developer, 'patch', `/api/v1/webhooks/${hook.id}`).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  describe('access (spec §5)', () => {
    let hookId: number;
    beforeAll(async () => {
      hookId = (await create(admin, { url: LAN_URL }).expect(201)).body.id;
    });
    const routes = (): [string, 'get' | 'post' | 'patch' | 'delete', string, object | undefined][] => [
      ['list', 'get', '/api/v1/webhooks', undefined],
      ['create', 'post', '/api/v1/webhooks', { url: LAN_URL }],
      ['update', 'patch', `/api/v1/webhooks/${hookId}`, { enabled: false }],
      ['delete', 'delete', `/api/v1/webhooks/${hookId}`, undefined],
      ['delivery log', 'get', `/api/v1/webhooks/${hookId}/deliveries`, undefined],
    ];

    it('a Viewer gets 403 "Viewers have read-only access" on every webhook endpoint, with a cookie or a PAT', async () => {
      const viewerPat = await members.pat(viewer, 'view,builds:write');
      for (const [name, method, path, body] of routes()) {
        const byCookie = await members.as(viewer, method, path).send(body);
        expect([name, byCookie.status, byCookie.body]).toEqual([name, 403, { error: 'Viewers have read-only access' }]);
        const byPat = await members.withPat(viewerPat, method, path).send(body);
        expect([name, byPat.status, byPat.body]).toEqual([name, 403, { error: 'Viewers have read-only access' }]);
      }
      // Nothing changed: the webhook is still there and enabled.
      const list = await members.as(admin, 'get', '/api/v1/webhooks').expect(200);
      expect(list.body.webhooks.find((w: { id: number }) => w.id === hookId)).toMatchObject({ enabled: true });
    });

    it('a PAT with builds:write works on every endpoint; a view-only PAT gets 403; no credentials 401', async () => {
      const viewOnly = await members.pat(developer, 'view');
      for (const [name, method, path, body] of routes()) {
        const res = await members.withPat(viewOnly, method, path).send(body);
        expect([name, res.status, res.body]).toEqual([name, 403, { error: 'Insufficient scope' }]);
        const anonymous = await relay.http()[method](path).send(body);
        expect([name, anonymous.status]).toEqual([name, 401]);
      }
      const writer = await members.pat(developer, 'builds:write');
      const expected = [200, 201, 200, 200, 404];
      const statuses = [];
      for (const [, method, path, body] of routes()) statuses.push((await members.withPat(writer, method, path).send(body)).status);
      expect(statuses).toEqual(expected); // the delivery log of a just-deleted webhook is 404
    });
  });

  it('the secret never reaches the relay log', async () => {
    await create(developer, { url: LAN_URL, secret: 'log-canary-secret-123' }).expect(201);
    expect(relay.logger.buffer.tail(500).join('\n')).not.toContain('log-canary-secret-123');
  });
});
