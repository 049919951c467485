/**
 * The outbox across kill -9 (issue 39 item 4, docs/integrations.md "One delivery path"), with a
 * tester's notice: the relay runs as a child process, its SMTP server is not listening yet, so the
 * notice stays queued after a failed attempt; the relay is killed with SIGKILL; the SMTP server
 * comes up on that port; after the restart the notice arrives. Under `npm run test:postgres` the
 * child relay runs on a PostgreSQL database of its own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { createTestDatabase } from '../support/test-relay';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { multipartBody, send, sendJson } from '../robustness/support/http';

// Two child starts; on a loaded machine one start can pass a minute.
jest.setTimeout(400_000);

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('outbox: a queued e-mail survives kill -9', () => {
  let dataDir: string;
  let relay: ChildRelay | null = null;
  let smtp: SmtpSink | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-outbox-crash-'));
  });
  afterAll(async () => {
    await relay?.kill();
    await smtp?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a notice queued while the SMTP server was down is delivered after the restart', async () => {
    const port = await freePort();
    const env = { ...(database ? { SVC_DATABASE_URL: database.url } : {}), SVC_SMTP_HOST: '127.0.0.1', SVC_SMTP_PORT: String(port), SVC_SMTP_FROM: 'relay@example.com' };
    relay = await startChildRelay(dataDir, env, 180_000);
    const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendJson(relay!.url, method, path, body, headers);
    expect((await json('POST', '/auth/init', { email: 'admin@example.com', password: 'correct horse battery' })).status).toBe(201);
    const login = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'correct horse battery' }),
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const upload = async () => {
      const res = await send(relay!.url, {
        method: 'POST',
        path: '/api/v1/builds',
        headers: { cookie, 'content-type': 'multipart/form-data; boundary=outboxcrash', origin: relay!.url },
        body: multipartBody('outboxcrash', [{ name: 'file', value: readFileSync(fixture('string-label.apk')), filename: 'a.apk' }]),
      });
      expect(res.status).toBe(201);
      return JSON.parse(res.text) as { id: number; app_id: number };
    };
    const { app_id: appId } = await upload();
    expect((await json('POST', `/apps/${appId}/testers`, { email: 'tess@example.com' }, { cookie, origin: relay.url })).status).toBe(201);
    await upload();
    // The attempt failed (nothing listens): still queued, with the error.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [mail] = (await json('GET', '/outbox/destinations', undefined, { cookie })).body as { queued: number; last_error: string | null }[];
      if (mail?.queued === 1 && mail.last_error) break;
      if (Date.now() > deadline) throw new Error(`the notice was not attempted: ${JSON.stringify(mail)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await relay.kill('SIGKILL')).toBe('SIGKILL');

    smtp = await new SmtpSink().start(port);
    relay = await startChildRelay(dataDir, env, 180_000);
    // The retry comes due 10 s after the failed attempt (the policy's first backoff).
    const mail = await smtp.lastTo('tess@example.com', 120_000);
    expect(mail.raw).toMatch(/\/install\/[0-9a-f]{64}/);
    expect(smtp.messages).toHaveLength(1);
  });
});
