/**
 * A reported issue across kill -9 (docs/integrations.md "Issue trackers"): the relay runs as a child
 * process and is killed while the outbox's "Create issue" request is in flight (the fake Jira holds
 * the answer); after the restart on the same data dir (or PostgreSQL database) the outbox sends the
 * message again and the issue is filed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { createTestDatabase } from '../support/test-relay';
import { multipartBody, send, sendJson } from '../robustness/support/http';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { FakeJira } from './support/fake-jira';

jest.setTimeout(300_000);

const TOKEN = 'jira_dc_crash_pat';

describe('tracker outbox: kill -9 while an issue is being filed', () => {
  const jira = new FakeJira(2, `Bearer ${TOKEN}`);
  let dataDir: string;
  let config: string;
  let relay: ChildRelay | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;

  beforeAll(async () => {
    await jira.start();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-tracker-crash-'));
    config = forgeConfigPath();
    writeFileSync(config, JSON.stringify({ trackers: [{ name: 'jira', type: 'jira-dc', url: jira.url, tokenEnv: 'JIRA_CRASH_TOKEN', projects: { '*': 'MOB' } }] }));
  });
  afterAll(async () => {
    await relay?.kill();
    await jira.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const db: Record<string, string> = database ? { SVC_DATABASE_URL: database.url } : {};
    relay = await startChildRelay(dataDir, { ...db, SVC_CONFIG: config, JIRA_CRASH_TOKEN: TOKEN }, 120_000);
  };
  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendJson(relay!.url, method, path, body, headers);

  it('files the issue after the restart', async () => {
    await start();
    expect((await json('POST', '/auth/init', { email: 'admin@example.com', password: 'correct horse battery' })).status).toBe(201);
    const login = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'correct horse battery' }),
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const pat = (await json('POST', '/tokens', { name: 'ci', scope: 'view,builds:write' }, { cookie })).body.token;
    const boundary = 'trackercrash';
    const uploaded = await send(relay!.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${pat}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, [{ name: 'file', value: readFileSync(fixture('string-label.apk')), filename: 'a.apk' }]),
    });
    expect(uploaded.status).toBe(201);
    const buildId = JSON.parse(uploaded.text).id as number;

    let release!: () => void;
    jira.script('createIssue', { status: 201, body: { id: '1', key: 'MOB-1' }, hold: new Promise<void>((resolve) => (release = resolve)) });
    expect((await json('POST', `/builds/${buildId}/issues`, { tracker: 'jira', title: 'Crashes on launch' }, { cookie })).status).toBe(201);
    await until('create in flight', () => jira.of('createIssue').length === 1, 60_000);
    expect(await relay!.kill('SIGKILL')).toBe('SIGKILL');
    release();

    await start();
    await until('created again after the restart', () => jira.of('createIssue').length === 2, 60_000);
    const filed = await until(
      'filed',
      async () => {
        const items = (await json('GET', `/builds/${buildId}/issues`, undefined, { cookie })).body.items as { delivery: string; key: string }[];
        return items.find((i) => i.delivery === 'filed');
      },
      60_000,
    );
    expect(filed.key).toBe('MOB-1');
    expect(jira.problems()).toEqual([]);
    // The delivery was the outbox's: one message, delivered once the restarted relay sent it again.
    // Filed is the step, committed before the outbox records the delivery: the count is waited for.
    const jiraDestination = await until('the delivery recorded', async () => {
      const destinations = (await json('GET', '/outbox/destinations', undefined, { cookie })).body as { destination: string; queued: number; delivered: number }[];
      const row = destinations.find((d) => d.destination === 'tracker:jira');
      return row?.queued === 0 ? row : null;
    });
    expect(jiraDestination).toMatchObject({ queued: 0, delivered: 1 });
  });
});
