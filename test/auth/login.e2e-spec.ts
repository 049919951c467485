import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ErrorMessages } from '../../src/common/errors/error-messages';
import { MINUTE_MS } from '../../src/common/time';
import { TEST_PASSWORD, TestMember, sessionCookieFrom } from '../support/factory';
import type { TestRelay } from '../support/test-relay';
import { useTestRelay, withTestRelay } from '../support/use-relay';

const LOGIN = '/api/v1/auth/login';
const TOO_MANY = { error: 'Too many attempts. Try again later.' };

function setCookieHeader(res: request.Response): string {
  const list = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const found = list.find((c) => c.startsWith('svc_token='));
  if (!found) throw new Error(`no svc_token in ${JSON.stringify(list)}`);
  return found;
}

function attributes(setCookie: string): Record<string, string | true> {
  const [, ...parts] = setCookie.split(';').map((p) => p.trim());
  return Object.fromEntries(
    parts.map((p) => {
      const [name, ...value] = p.split('=');
      return [name.toLowerCase(), value.length ? value.join('=') : true];
    }),
  );
}

describe('POST /auth/login', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
  });

  const login = (body: object) => ctx.relay.http().post(LOGIN).send(body);

  it('200 { ok, role } with svc_token: HttpOnly, SameSite=Lax, Path=/, Max-Age 7 days, no Secure over HTTP, no Domain', async () => {
    const qa = await ctx.members.member('QA');
    const res = await login({ email: qa.email, password: TEST_PASSWORD }).expect(200);
    expect(res.body).toEqual({ ok: true, role: 'QA' });
    const cookie = setCookieHeader(res);
    expect(cookie).toMatch(/^svc_token=[A-Za-z0-9_-]{43};/);
    const attrs = attributes(cookie);
    expect(attrs.httponly).toBe(true);
    expect(attrs.samesite).toBe('Lax');
    expect(attrs.path).toBe('/');
    expect(attrs['max-age']).toBe('604800');
    expect(attrs.secure).toBeUndefined();
    expect(attrs.domain).toBeUndefined();
    await ctx.relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(cookie)).expect(200);
  });

  it('every sign-in issues a fresh token; a value chosen by an attacker never authenticates', async () => {
    const planted = 'svc_token=attacker-chosen-value-0123456789abcdef0123456789';
    const res = await ctx.relay
      .http()
      .post(LOGIN)
      .set('Cookie', planted)
      .send({ email: admin.email, password: TEST_PASSWORD })
      .expect(200);
    const fresh = sessionCookieFrom(res.headers['set-cookie']);
    expect(fresh).not.toBe(planted);
    expect(fresh).not.toBe(admin.cookie);
    await ctx.relay.http().get('/api/v1/auth/me').set('Cookie', planted).expect(401);
  });

  it('matches the e-mail ignoring case and surrounding spaces', async () => {
    const res = await login({ email: '  ADMIN@Example.COM \t', password: TEST_PASSWORD }).expect(200);
    const me = await ctx.relay
      .http()
      .get('/api/v1/auth/me')
      .set('Cookie', sessionCookieFrom(res.headers['set-cookie']))
      .expect(200);
    expect(me.body.email).toBe('admin@example.com');
  });

  it('an unknown e-mail and a wrong password get the same answer', async () => {
    const unknown = await login({ email: 'nobody@example.com', password: TEST_PASSWORD });
    const wrong = await login({ email: admin.email, password: 'not the password' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.body).toEqual({ error: ErrorMessages.invalidCredentials });
    expect(unknown.headers['set-cookie']).toBeUndefined();
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const headerNames = (res: request.Response) =>
      Object.keys(res.headers)
        .filter((h) => h !== 'date')
        .sort();
    expect(headerNames(unknown)).toEqual(headerNames(wrong));
  });

  it('the first 72 characters of an 80-character password do not sign in (no bcrypt truncation)', async () => {
    const long = 'p'.repeat(70) + 'ABCDEFGHIJ';
    const member = await ctx.members.member('Developer');
    await ctx.members
      .as(member, 'post', '/api/v1/auth/change-password')
      .send({ currentPassword: TEST_PASSWORD, newPassword: long })
      .expect(200);
    await login({ email: member.email, password: long.slice(0, 72) }).expect(401);
    await login({ email: member.email, password: long.slice(0, 79) }).expect(401);
    await login({ email: member.email, password: long }).expect(200);
  });

  it('100-character and emoji passwords round-trip', async () => {
    for (const password of ['x'.repeat(100), '🔐 pässwörd ✓ 密码']) {
      const member = await ctx.members.member('QA');
      await ctx.members
        .as(member, 'post', '/api/v1/auth/change-password')
        .send({ currentPassword: TEST_PASSWORD, newPassword: password })
        .expect(200);
      await login({ email: member.email, password }).expect(200);
    }
  });

  it.each([
    ['empty body', {}, 'email is required'],
    ['no email', { password: TEST_PASSWORD }, 'email is required'],
    ['empty email', { email: '', password: TEST_PASSWORD }, 'email is required'],
    ['numeric email', { email: 42, password: TEST_PASSWORD }, 'email is required'],
    ['no password', { email: 'admin@example.com' }, 'password is required'],
    ['empty password', { email: 'admin@example.com', password: '' }, 'password is required'],
    ['400-char email', { email: 'a'.repeat(400), password: 'x' }, 'email must be at most 320 characters'],
  ])('400 for %s', async (_label, body, error) => {
    const res = await login(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  it('a body that is not JSON is not read as credentials', async () => {
    const res = await ctx.relay
      .http()
      .post(LOGIN)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ email: admin.email, password: TEST_PASSWORD }));
    expect(res.status).toBe(400);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  describe('cross-site sign-in', () => {
    it.each([
      ['a foreign Origin', { Origin: 'http://evil.example' }],
      ['another port on the same host', { Origin: 'http://127.0.0.1:1' }],
      ['Origin: null', { Origin: 'null' }],
      ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
    ])('%s → 403 and no cookie', async (_name, headers) => {
      const res = await ctx.relay.http().post(LOGIN).set(headers).send({ email: admin.email, password: TEST_PASSWORD });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: ErrorMessages.crossSite });
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('the relay’s own origin, or no Origin at all (curl), signs in', async () => {
      await ctx.relay
        .http()
        .post(LOGIN)
        .set('Origin', ctx.relay.url)
        .send({ email: admin.email, password: TEST_PASSWORD })
        .expect(200);
      await login({ email: admin.email, password: TEST_PASSWORD }).expect(200);
    });
  });
});

describe('login throttle: 5 failures per (client address, e-mail) in 15 minutes', () => {
  const ctx = useTestRelay();
  beforeAll(async () => {
    await ctx.members.admin();
  });

  const login = (email: string, password: string) => ctx.relay.http().post(LOGIN).send({ email, password });
  const fail = async (email: string, times: number) => {
    for (let i = 0; i < times; i++) await login(email, 'wrong password').expect(401);
  };

  it('blocks with 429, Retry-After and the spec message; even the right password; variants share the bucket', async () => {
    const member = await ctx.members.member('QA');
    await fail(member.email, 5);
    const blocked = await login(member.email, TEST_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(TOO_MANY);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(15 * 60 - 10);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(blocked.headers['set-cookie']).toBeUndefined();

    const variant = await login(`  ${member.email.toUpperCase()} `, TEST_PASSWORD);
    expect(variant.status).toBe(429);
    expect(variant.body).toEqual(TOO_MANY);

    // another e-mail from the same address is not blocked
    const other = await ctx.members.member('QA');
    await login(other.email, TEST_PASSWORD).expect(200);
    await login(other.email, 'wrong password').expect(401);

    // Retry-After counts down with time
    ctx.relay.clock.advance(10 * MINUTE_MS);
    const later = await login(member.email, TEST_PASSWORD).expect(429);
    expect(Number(later.headers['retry-after'])).toBeLessThanOrEqual(5 * 60);
    expect(Number(later.headers['retry-after'])).toBeGreaterThan(5 * 60 - 10);

    // once it has passed, the right password works
    ctx.relay.clock.advance(5 * MINUTE_MS + 1000);
    await login(member.email, TEST_PASSWORD).expect(200);
  });

  it('a success clears the count; failures older than 15 minutes no longer count', async () => {
    const member = await ctx.members.member('Viewer');
    await fail(member.email, 4);
    await login(member.email, TEST_PASSWORD).expect(200);
    await fail(member.email, 4);
    await login(member.email, TEST_PASSWORD).expect(200);

    await fail(member.email, 4);
    ctx.relay.clock.advance(15 * MINUTE_MS + 1000);
    await fail(member.email, 4);
    await login(member.email, TEST_PASSWORD).expect(200);
  });

  it('change-password: wrong current passwords are throttled like sign-ins, in the same bucket', async () => {
    const member = await ctx.members.member('Developer');
    const change = (currentPassword: string) =>
      ctx.members.as(member, 'post', '/api/v1/auth/change-password').send({ currentPassword, newPassword: 'a brand new passphrase' });
    for (let i = 0; i < 5; i++) await change('wrong password').expect(400);
    const blocked = await change(TEST_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(TOO_MANY);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(15 * 60 - 10);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    // the same guesses count against sign-in from this address, and the other way round
    await login(member.email, TEST_PASSWORD).expect(429);
    ctx.relay.clock.advance(15 * MINUTE_MS + 1000);
    await fail(member.email, 5);
    await change(TEST_PASSWORD).expect(429);
    ctx.relay.clock.advance(15 * MINUTE_MS + 1000);
    // a right current password clears the count and changes it
    await change('wrong password').expect(400);
    await change(TEST_PASSWORD).expect(200);
    await login(member.email, 'a brand new passphrase').expect(200);
  });

  it('unknown e-mails are throttled like known ones (no enumeration through 429)', async () => {
    await fail('ghost@example.com', 5);
    const res = await login('ghost@example.com', 'anything at all');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(TOO_MANY);
  });
});

describe('login throttle under a burst', () => {
  it('parallel guesses get no more than 5 password checks before the block', async () => {
    // A realistic bcrypt cost, so the guesses really overlap while hashing; four workers, so that the
    // burst's checks queue well under a second (beyond it a sign-in is refused with 503 uncounted:
    // test/auth/sign-in-burst), though a loaded machine may still refuse a few.
    await withTestRelay({ SVC_BCRYPT_COST: '10', SVC_PASSWORD_WORKERS: '4' }, async (relay, members) => {
      const admin = await members.admin();
      const guess = () => relay.http().post(LOGIN).send({ email: admin.email, password: 'wrong password' });
      const statuses = (await Promise.all(Array.from({ length: 12 }, guess))).map((r) => r.status);
      const count = (status: number) => statuses.filter((s) => s === status).length;
      expect(count(401) + count(429) + count(503)).toBe(12);
      // Never more than 5 checks; exactly 5 when none was refused for a busy queue.
      expect(count(401)).toBe(count(503) ? Math.min(count(401), 5) : 5);
      await relay.http().post(LOGIN).send({ email: admin.email, password: TEST_PASSWORD }).expect(count(401) === 5 ? 429 : 200);
    });
  });
});

describe('Secure cookie over HTTPS', () => {
  it('direct TLS: the login cookie is Secure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
      { stdio: 'ignore' },
    );
    try {
      await withTestRelay({ SVC_TLS_CERT: cert, SVC_TLS_KEY: key }, async (relay) => {
        const origin = `https://127.0.0.1:${relay.port}`;
        const https = () => request(origin);
        await https().post('/api/v1/auth/init').disableTLSCerts().send({ email: 'a@example.com', password: TEST_PASSWORD }).expect(201);
        const res = await https()
          .post(LOGIN)
          .disableTLSCerts()
          .set('Origin', origin)
          .send({ email: 'a@example.com', password: TEST_PASSWORD })
          .expect(200);
        expect(attributes(setCookieHeader(res)).secure).toBe(true);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const loginVia = (relay: TestRelay, headers: Record<string, string>) =>
    relay.http().post(LOGIN).set(headers).send({ email: 'admin@example.com', password: TEST_PASSWORD }).expect(200);

  it('behind a trusted proxy: Secure exactly when X-Forwarded-Proto is https', async () => {
    await withTestRelay({ SVC_TRUST_PROXY: 'loopback' }, async (relay, members) => {
      await members.admin();
      const viaProxy = (proto: string) => loginVia(relay, { 'X-Forwarded-Proto': proto, 'X-Forwarded-For': '198.51.100.4' });
      expect(attributes(setCookieHeader(await viaProxy('https'))).secure).toBe(true);
      expect(attributes(setCookieHeader(await viaProxy('http'))).secure).toBeUndefined();
    });
  });

  it('X-Forwarded-Proto from an untrusted client does not set Secure', async () => {
    await withTestRelay({}, async (relay, members) => {
      await members.admin();
      const res = await loginVia(relay, { 'X-Forwarded-Proto': 'https' });
      expect(attributes(setCookieHeader(res)).secure).toBeUndefined();
    });
  });
});
