import { sessionCookieFrom, TEST_PASSWORD } from '../support/factory';
import { useTestRelay, withTestRelay } from '../support/use-relay';
import { DAY, expectError, expectOk, expectShape, ME_SHAPE } from './support';

describe('conformance: §4 Auth on a relay with no account', () => {
  it('init from the relay host: 201 exactly { ok: true }; from elsewhere 403 naming the admin init command', async () => {
    await withTestRelay({}, async (relay) => {
      const remote = () => relay.http().post('/api/v1/auth/init').set('X-Forwarded-For', '203.0.113.5');
      expectError(await remote().send({ email: 'a@example.com', password: TEST_PASSWORD }), 403, /svc admin init/);
      const status = await relay.http().get('/api/v1/auth/status').set('X-Forwarded-For', '203.0.113.5').expect(200);
      expect(status.body).toEqual({ initialized: false, canInitialize: false });
      const res = await relay.http().post('/api/v1/auth/init').send({ email: 'first@example.com', password: TEST_PASSWORD });
      expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { ok: true } });
      expectError(await remote().send({ email: 'b@example.com', password: TEST_PASSWORD }), 403, 'Already initialized');
    });
  });
});

describe('conformance: §4 Auth', () => {
  const ctx = useTestRelay();
  const http = () => ctx.relay.http();

  it('GET /auth/status: exactly { initialized, canInitialize } before and after init', async () => {
    const before = await http().get('/api/v1/auth/status').expect(200);
    expect(before.body).toEqual({ initialized: false, canInitialize: true });
    await ctx.members.admin();
    const after = await http().get('/api/v1/auth/status').expect(200);
    expect(after.body).toEqual({ initialized: true, canInitialize: false });
  });

  it('POST /auth/init: 403 `Already initialized` once an account exists; 400 for missing fields / short password', async () => {
    await ctx.members.admin();
    expectError(
      await http().post('/api/v1/auth/init').send({ email: 'other@example.com', password: TEST_PASSWORD }),
      403,
      'Already initialized',
    );
    expectError(await http().post('/api/v1/auth/init').send({ email: 'x@example.com', password: 'short' }), 400);
    expectError(await http().post('/api/v1/auth/init').send({}), 400);
  });

  it('POST /auth/login: 200 { ok: true, role } with svc_token valid 7 days; e-mail ignores case and spaces', async () => {
    const dev = await ctx.members.member('Developer', 'mixed.case@example.com');
    const res = await http().post('/api/v1/auth/login').send({ email: '  MIXED.Case@Example.COM ', password: dev.password });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true, role: 'Developer' } });
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_token='))!;
    expect(set).toMatch(/Max-Age=604800/);
    const cookie = sessionCookieFrom(res.headers['set-cookie']);
    await http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200);
  });

  it('POST /auth/login: wrong password 401 { error }; missing fields 400 { error }', async () => {
    const qa = await ctx.members.member('QA');
    expectError(await http().post('/api/v1/auth/login').send({ email: qa.email, password: 'wrong password' }), 401);
    expectError(await http().post('/api/v1/auth/login').send({ email: qa.email }), 400);
    expectError(await http().post('/api/v1/auth/login').send({ password: 'whatever1' }), 400);
  });

  it('POST /auth/login: repeated failures give 429 `Too many attempts. Try again later.` with Retry-After', async () => {
    const victim = await ctx.members.member('QA');
    let last;
    for (let i = 0; i < 8; i++) {
      last = await http().post('/api/v1/auth/login').send({ email: victim.email, password: `bad-${i}-password` });
      if (last.status === 429) break;
    }
    expectError(last!, 429, 'Too many attempts. Try again later.');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('GET /auth/me: the current user object, displayName a string (e-mail local part when none), avatarUrl null', async () => {
    const viewer = await ctx.members.member('Viewer', 'no.name@example.com');
    const res = await ctx.members.as(viewer, 'get', '/api/v1/auth/me').expect(200);
    expectShape(res.body, ME_SHAPE);
    expect(res.body).toEqual({ id: viewer.id, email: viewer.email, displayName: 'no.name', avatarUrl: null, role: 'Viewer' });
  });

  it('GET /auth/me: 401 `Unauthorized` without a cookie and for a PAT (cookie-only endpoint)', async () => {
    expectError(await http().get('/api/v1/auth/me'), 401, 'Unauthorized');
    const admin = await ctx.members.admin();
    const pat = await ctx.members.pat(admin, 'view,builds:write');
    expectError(await ctx.members.withPat(pat, 'get', '/api/v1/auth/me'), 401, 'Unauthorized');
  });

  it('POST /auth/change-password: 200 { ok: true }, new cookie, other sessions end; short new password 400', async () => {
    const dev = await ctx.members.member('Developer');
    const other = await ctx.members.login(dev.email);
    expectError(
      await ctx.members.as(dev, 'post', '/api/v1/auth/change-password').send({ currentPassword: dev.password, newPassword: 'short' }),
      400,
    );
    const res = await ctx.members
      .as(dev, 'post', '/api/v1/auth/change-password')
      .send({ currentPassword: dev.password, newPassword: 'a brand new password' });
    expectOk(res);
    const fresh = sessionCookieFrom(res.headers['set-cookie']);
    await http().get('/api/v1/auth/me').set('Cookie', fresh).expect(200);
    expectError(await http().get('/api/v1/auth/me').set('Cookie', other), 401, 'Unauthorized');
  });

  it('POST /auth/logout: 200 { ok: true }, clears the cookie; without a session 401', async () => {
    const qa = await ctx.members.member('QA');
    const res = await ctx.members.as(qa, 'post', '/api/v1/auth/logout');
    expectOk(res);
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_token='));
    expect(cleared).toMatch(/^svc_token=;|Max-Age=0|Expires=Thu, 01 Jan 1970/);
    expectError(await ctx.members.as(qa, 'get', '/api/v1/auth/me'), 401, 'Unauthorized');
    expectError(await http().post('/api/v1/auth/logout'), 401, 'Unauthorized');
  });

  // Last: moves the relay clock past every session made above.
  it('the svc_token session is valid 7 days, then 401 `Unauthorized`', async () => {
    const qa = await ctx.members.member('QA');
    ctx.relay.clock.advance(7 * DAY - 60_000);
    await ctx.members.as(qa, 'get', '/api/v1/auth/me').expect(200);
    ctx.relay.clock.advance(2 * 60_000);
    expectError(await ctx.members.as(qa, 'get', '/api/v1/auth/me'), 401, 'Unauthorized');
  });
});
