import { ErrorMessages } from '../../src/common/errors/error-messages';
import { TEST_PASSWORD } from '../support/factory';
import { useTestRelay, withTestRelay } from '../support/use-relay';

/** Headers a tunnel or proxy on this machine adds; each one makes a loopback request remote. */
const FORWARDED: Record<string, Record<string, string>> = {
  'X-Forwarded-For': { 'X-Forwarded-For': '203.0.113.9' },
  'X-Forwarded-For naming loopback': { 'X-Forwarded-For': '127.0.0.1' },
  Forwarded: { Forwarded: 'for=203.0.113.9' },
  'X-Real-IP': { 'X-Real-IP': '127.0.0.1' },
  'CF-Connecting-IP + Cf-Ray': { 'CF-Connecting-IP': '203.0.113.9', 'Cf-Ray': '8c1f-AMS' },
  'True-Client-IP': { 'True-Client-IP': '203.0.113.9' },
  'Tailscale-Funnel-Request': { 'Tailscale-Funnel-Request': '?1' },
  'Tailscale-User-Login': { 'Tailscale-User-Login': 'someone@example.com' },
  'X-Forwarded-Host + X-Forwarded-Proto': { 'X-Forwarded-Host': 'relay.ts.net', 'X-Forwarded-Proto': 'https' },
};

describe('relay-host rule from loopback (no trusted proxy)', () => {
  const ctx = useTestRelay();

  it.each(Object.entries(FORWARDED))('%s from loopback is not the relay host', async (_name, headers) => {
    const status = await ctx.relay.http().get('/api/v1/auth/status').set(headers).expect(200);
    expect(status.body).toEqual({ initialized: false, canInitialize: false });

    const init = await ctx.relay
      .http()
      .post('/api/v1/auth/init')
      .set(headers)
      .send({ email: 'admin@example.com', password: TEST_PASSWORD });
    expect(init.status).toBe(403);
    expect(init.body).toEqual({ error: ErrorMessages.initNotFromHost });
    expect(init.body.error).toContain('svc admin init');

    const logs = await ctx.relay.http().get('/api/v1/logs').set(headers);
    expect(logs.status).toBe(403);
    expect(logs.body).toEqual({ error: ErrorMessages.logsNotFromHost });
  });

  it('plain loopback requests are the relay host: status, init once, logs', async () => {
    expect((await ctx.relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual({
      initialized: false,
      canInitialize: true,
    });
    await ctx.relay.http().get('/api/v1/logs').expect(200);

    const init = await ctx.relay
      .http()
      .post('/api/v1/auth/init')
      .send({ email: 'admin@example.com', password: TEST_PASSWORD })
      .expect(201);
    expect(init.body).toEqual({ ok: true });
    expect((await ctx.relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual({
      initialized: true,
      canInitialize: false,
    });

    const again = await ctx.relay
      .http()
      .post('/api/v1/auth/init')
      .send({ email: 'other@example.com', password: TEST_PASSWORD });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ error: 'Already initialized' });
  });

  it('a forwarded request with an Admin cookie still gets no logs', async () => {
    const cookie = await ctx.members.login('admin@example.com');
    const logs = await ctx.relay.http().get('/api/v1/logs').set('Cookie', cookie).set('X-Forwarded-For', '203.0.113.9');
    expect(logs.status).toBe(403);
    expect(logs.body).toEqual({ error: ErrorMessages.logsNotFromHost });
  });
});

describe('/auth/init', () => {
  it('two parallel inits: exactly one 201, the other 403, one account', async () => {
    await withTestRelay({}, async (relay) => {
      const attempts = await Promise.all(
        ['first@example.com', 'second@example.com', 'third@example.com'].map((email) =>
          relay.http().post('/api/v1/auth/init').send({ email, password: TEST_PASSWORD }),
        ),
      );
      expect(attempts.map((r) => r.status).sort()).toEqual([201, 403, 403]);
      for (const lost of attempts.filter((r) => r.status === 403)) {
        expect(lost.body).toEqual({ error: 'Already initialized' });
      }
      const winner = attempts.findIndex((r) => r.status === 201);
      const email = ['first@example.com', 'second@example.com', 'third@example.com'][winner];
      const login = await relay.http().post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD }).expect(200);
      expect(login.body).toEqual({ ok: true, role: 'Admin' });
    });
  });

  it('validates its body: e-mail and password of at least 8 characters', async () => {
    await withTestRelay({}, async (relay) => {
      const cases: [unknown, string][] = [
        [{ password: TEST_PASSWORD }, 'email is required'],
        [{ email: 'not-an-email', password: TEST_PASSWORD }, 'email must be a valid e-mail address'],
        [{ email: 'a@example.com' }, 'password must be at least 8 characters'],
        [{ email: 'a@example.com', password: '1234567' }, 'password must be at least 8 characters'],
        [{ email: 'a@example.com', password: 12345678 }, 'password must be at least 8 characters'],
      ];
      for (const [body, error] of cases) {
        const res = await relay.http().post('/api/v1/auth/init').send(body as object);
        expect({ body, status: res.status, error: res.body }).toEqual({ body, status: 400, error: { error } });
      }
      expect((await relay.http().get('/api/v1/auth/status')).body.initialized).toBe(false);
      // exactly 8 characters is enough; the e-mail is stored trimmed and lower-cased
      await relay.http().post('/api/v1/auth/init').send({ email: ' Boss@Example.COM ', password: '12345678' }).expect(201);
      const login = await relay.http().post('/api/v1/auth/login').send({ email: 'boss@example.com', password: '12345678' });
      expect(login.status).toBe(200);
    });
  });
});

describe('relay-host rule behind a trusted proxy (SVC_TRUST_PROXY=loopback)', () => {
  const ctx = useTestRelay({ SVC_TRUST_PROXY: 'loopback' });

  it('a remote client forwarded by the trusted proxy is not the relay host', async () => {
    for (const xff of ['10.231.0.2', '127.0.0.1, 10.231.0.2', '203.0.113.9']) {
      const logs = await ctx.relay.http().get('/api/v1/logs').set('X-Forwarded-For', xff);
      expect({ xff, status: logs.status, body: logs.body }).toEqual({
        xff,
        status: 403,
        body: { error: ErrorMessages.logsNotFromHost },
      });
      const status = await ctx.relay.http().get('/api/v1/auth/status').set('X-Forwarded-For', xff).expect(200);
      expect(status.body.canInitialize).toBe(false);
    }
  });

  it('headers Express does not interpret stay remote even from the trusted proxy', async () => {
    for (const headers of [FORWARDED['X-Real-IP'], FORWARDED.Forwarded, FORWARDED['CF-Connecting-IP + Cf-Ray']]) {
      await ctx.relay.http().get('/api/v1/logs').set(headers).set('X-Forwarded-For', '127.0.0.1').expect(403);
    }
    // a trusted proxy that names no client at all proves nothing
    await ctx.relay.http().get('/api/v1/logs').set('X-Forwarded-Proto', 'https').expect(403);
  });

  it('a client on this machine going through the trusted proxy is the relay host', async () => {
    await ctx.relay.http().get('/api/v1/logs').set('X-Forwarded-For', '127.0.0.1').expect(200);
    const status = await ctx.relay.http().get('/api/v1/auth/status').set('X-Forwarded-For', '::1').expect(200);
    expect(status.body).toEqual({ initialized: false, canInitialize: true });
  });

  it('login throttling keys on the forwarded client address', async () => {
    await ctx.members.admin();
    const attempt = (xff: string, password = 'wrong password') =>
      ctx.relay
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', xff)
        .send({ email: 'admin@example.com', password });
    for (let i = 0; i < 5; i++) await attempt('198.51.100.7').expect(401);
    await attempt('198.51.100.7', TEST_PASSWORD).expect(429);
    // another client behind the same proxy is its own bucket
    await attempt('198.51.100.8', TEST_PASSWORD).expect(200);
  });
});

describe('trust proxy = true does not let a client forge a local address', () => {
  it('X-Forwarded-For "127.0.0.1, <real client>" is remote', async () => {
    await withTestRelay({ SVC_TRUST_PROXY: 'true' }, async (relay) => {
      await relay.http().get('/api/v1/logs').set('X-Forwarded-For', '127.0.0.1, 203.0.113.9').expect(403);
      await relay.http().get('/api/v1/logs').set('X-Forwarded-For', 'not-an-address').expect(403);
      await relay.http().get('/api/v1/logs').set('X-Forwarded-For', '127.0.0.1').expect(200);
    });
  });
});

describe('without a trusted proxy, X-Forwarded-For is ignored for throttling', () => {
  it('rotating X-Forwarded-For does not escape the (address, e-mail) bucket', async () => {
    await withTestRelay({}, async (relay, members) => {
      await members.admin();
      for (let i = 0; i < 5; i++) {
        await relay
          .http()
          .post('/api/v1/auth/login')
          .set('X-Forwarded-For', `198.51.100.${i}`)
          .send({ email: 'admin@example.com', password: 'wrong password' })
          .expect(401);
      }
      const res = await relay
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', '198.51.100.99')
        .send({ email: 'admin@example.com', password: TEST_PASSWORD });
      expect(res.status).toBe(429);
    });
  });
});
