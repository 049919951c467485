/**
 * A Slack notice across kill -9 (issue 39 items 2 and 4, docs/integrations.md "Slack and Microsoft
 * Teams"): the relay runs as a child process and its Slack (a fake on loopback) is not listening
 * yet, so the new build's notice stays queued after a failed attempt; the relay is killed with
 * SIGKILL; Slack comes up on that port; after the restart the notice is posted, once. Under
 * `npm run test:postgres` the child relay runs on a PostgreSQL database of its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { createTestDatabase } from '../support/test-relay';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { multipartBody, send, sendJson } from '../robustness/support/http';
import { until } from '../forges/support/forge-relay';
import { FakeSlack } from './support/fake-slack';

// Two child starts; on a loaded machine one start can pass a minute.
jest.setTimeout(400_000);

const BOT_TOKEN = 'xoxb-crash-test-bot-token-0001';
const CHANNEL = 'C0CRASH';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('chat: a queued Slack notice survives kill -9', () => {
  let dataDir: string;
  let relay: ChildRelay | null = null;
  const slack = new FakeSlack(BOT_TOKEN);
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-chat-crash-'));
  });
  afterAll(async () => {
    await relay?.kill();
    await slack.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a notice queued while Slack was unreachable is posted after the restart', async () => {
    const port = await freePort();
    const config = join(dataDir, 'chat.config.json');
    writeFileSync(
      config,
      JSON.stringify({ chat: { slack: { botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SECRET', apiUrl: `http://127.0.0.1:${port}/api`, channels: [{ channel: CHANNEL }] } } }),
    );
    const env = { ...(database ? { SVC_DATABASE_URL: database.url } : {}), SVC_CONFIG: config, SLACK_BOT: BOT_TOKEN, SLACK_SECRET: 'crash-test-signing-secret' };
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
    const upload = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { cookie, 'content-type': 'multipart/form-data; boundary=chatcrash', origin: relay.url },
      body: multipartBody('chatcrash', [{ name: 'file', value: readFileSync(fixture('string-label.apk')), filename: 'a.apk' }]),
    });
    expect(upload.status).toBe(201);
    const buildId = (JSON.parse(upload.text) as { id: number }).id;

    // The attempt failed (nothing listens): still queued, with the error, and no credential in it.
    const queued = await until(
      'the notice attempted',
      async () => {
        const destinations = (await json('GET', '/outbox/destinations', undefined, { cookie })).body as { destination: string; queued: number; last_error: string | null }[];
        const slackQueue = destinations.find((d) => d.destination === `slack:${CHANNEL}`);
        return slackQueue?.queued === 1 && slackQueue.last_error ? slackQueue : null;
      },
      60_000,
    );
    expect(queued.last_error).not.toContain(BOT_TOKEN);
    expect(await relay.kill('SIGKILL')).toBe('SIGKILL');

    await slack.start(port);
    relay = await startChildRelay(dataDir, env, 180_000);
    // The retry comes due 10 s after the failed attempt (the policy's first backoff).
    const [posted] = await until('the notice posted', () => slack.of('chat.postMessage').length > 0 && slack.of('chat.postMessage'), 120_000);
    expect(posted.body.channel).toBe(CHANNEL);
    expect(JSON.stringify(posted.body.blocks)).toContain(`"value":"${buildId}"`);
    expect(slack.of('chat.postMessage')).toHaveLength(1);
    expect(slack.problems()).toEqual([]);
  });
});
