import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { fixture } from '../support/build-fixtures';
import { MemberFactory, sessionCookieFrom } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { runCli, CLI_TEST_TIMEOUT_MS } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const PASSWORD = 'first admin passphrase';

/** `svc admin …` on the data dir of a running relay, checked through the relay's own HTTP API. */
describe('svc admin', () => {
  let relay: TestRelay;
  beforeEach(async () => {
    relay = await startTestRelay();
  });
  afterEach(() => relay.close());

  const admin = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(['admin', ...args, '--data-dir', relay.dataDir], {
      // The relay's database: its SQLite file in the data dir, or its PostgreSQL test database.
      env: { SVC_ADMIN_PASSWORD: PASSWORD, SVC_DATABASE_URL: relay.env.SVC_DATABASE_URL, ...env },
    });

  const login = (email: string, password: string) => request(relay.url).post('/api/v1/auth/login').send({ email, password });

  it('init creates the first Admin while the relay runs; it signs in; a second init is refused', async () => {
    expect((await relay.http().get('/api/v1/auth/status')).body.initialized).toBe(false);
    const first = await admin(['init', '--email', ' Owner@Example.com ']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Created the first Admin owner@example.com');

    expect((await relay.http().get('/api/v1/auth/status')).body).toEqual({ initialized: true, canInitialize: false });
    const signedIn = await login('owner@example.com', PASSWORD).expect(200);
    expect(signedIn.body).toEqual({ ok: true, role: 'Admin' });

    const second = await admin(['init', '--email', 'other@example.com']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^svc: Already initialized: this relay already has an account/);
    await login('other@example.com', PASSWORD).expect(401);
  });

  it('init: a short password, a bad e-mail, or no password and no terminal are usage errors', async () => {
    const short = await admin(['init', '--email', 'a@example.com'], { SVC_ADMIN_PASSWORD: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 8 characters');
    const badEmail = await admin(['init', '--email', 'not-an-email']);
    expect(badEmail.code).toBe(2);
    const noPassword = await admin(['init', '--email', 'a@example.com'], { SVC_ADMIN_PASSWORD: undefined });
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('set SVC_ADMIN_PASSWORD');
    const missingEmail = await admin(['init']);
    expect(missingEmail.code).toBe(2);
    expect((await relay.http().get('/api/v1/auth/status')).body.initialized).toBe(false);
  });

  it('reset-password prints a working link that lets a locked-out Admin back in and ends their sessions and tokens', async () => {
    const members = new MemberFactory(relay);
    const owner = await members.admin();
    await members.pat(owner);
    const result = await admin(['reset-password', owner.email]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const link = /https?:\/\/\S+\/reset-password\?token=([0-9a-f]{64})\s*$/.exec(result.stdout);
    expect(link).not.toBeNull();
    const token = link![1];

    await request(relay.url).get('/api/v1/auth/reset-password/verify').query({ token }).expect(200);
    await request(relay.url).post('/api/v1/auth/reset-password').send({ token, password: 'brand new passphrase' }).expect(200);
    // The reset (done by the relay) signs the member out everywhere and revokes their tokens.
    await members.as(owner, 'get', '/api/v1/auth/me').expect(401);
    await login(owner.email, owner.password).expect(401);
    const cookie = sessionCookieFrom((await login(owner.email, 'brand new passphrase').expect(200)).headers['set-cookie']);
    const tokens = await request(relay.url).get('/api/v1/tokens').set('Cookie', cookie).expect(200);
    expect(tokens.body).toEqual([]);
    // Single use.
    await request(relay.url).post('/api/v1/auth/reset-password').send({ token, password: 'another passphrase' }).expect(410);
  });

  it('reset-password for an unknown e-mail is exit 1 and changes nothing', async () => {
    const members = new MemberFactory(relay);
    const owner = await members.admin();
    const result = await admin(['reset-password', 'nobody@example.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No member with the e-mail nobody@example.com');
    await members.as(owner, 'get', '/api/v1/auth/me').expect(200);
  });

  it('neither command sweeps the running relay: an upload in flight and a build file not yet committed survive', async () => {
    const members = new MemberFactory(relay);
    const owner = await members.admin();
    const pat = await members.pat(owner, 'view,builds:write');
    const apk = readFileSync(fixture('string-label.apk'));
    const boundary = 'inflightboundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.apk"\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let finishUpload = (): unknown => undefined;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const upload = httpRequest(`${relay.url}/api/v1/builds`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${pat}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + apk.length + tail.length),
        },
      });
      upload.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      upload.on('error', reject);
      upload.write(head);
      upload.write(apk);
      finishUpload = () => upload.end(tail);
    });
    // Awaited at the end; until then a failed upload must not be an unhandled rejection (it would kill the jest worker).
    answer.catch(() => undefined);
    const tmp = join(relay.dataDir, 'tmp');
    // Its temp file exists once the relay has started writing the body; how much of it is on disk
    // yet depends on the spool (docs/decisions.md#item-21: a slow write switches to 1 MB buffered writes).
    const partial = () => readdirSync(tmp).filter((f) => f.endsWith('.part'));
    for (const deadline = Date.now() + 15_000; partial().length === 0; ) {
      if (Date.now() > deadline) throw new Error('the upload never reached the disk');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [inFlight] = partial();
    // a build file between its rename into builds/ and the commit of its row
    const uncommitted = join(relay.dataDir, 'builds', '0123456789abcdef0123456789abcdef.apk');
    writeFileSync(uncommitted, apk);

    expect((await admin(['reset-password', owner.email])).code).toBe(0);
    expect((await admin(['init', '--email', 'late@example.com'])).code).toBe(1); // already initialized, but it booted
    expect(existsSync(join(tmp, inFlight))).toBe(true);
    expect(existsSync(uncommitted)).toBe(true);

    finishUpload();
    const done = await answer;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body).id).toEqual(expect.any(Number));
  });
});

