/**
 * A relay killed mid-session (issue 37 item 3, docs/device-tests.md "Devices, queue and ending"):
 * the relay runs as a child process; a WebdriverIO client holds a hub session on a fake device
 * (a real Appium with its fake driver) and marks it failed (svc:status); the relay is killed with
 * SIGKILL. The mark is stored when given (another instance reads it while the session runs), and
 * on the next start on the same data the session is ended, "the relay restarted", with its mark,
 * and its run is no longer `running`. Under `npm run test:postgres` the relay runs on PostgreSQL.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { AppiumBridge } from '../../src/agent-daemon/appium/appium-bridge';
import { FakeAppModels } from '../../src/agent-daemon/appium/fake-app-model';
import { FakeBackend } from '../../src/agent-daemon/backends/fake-backend';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { eventually, firstAdminCookie, multipartBody, send, sendJson } from '../robustness/support/http';
import { fixture } from '../support/build-fixtures';
import { createTestDatabase } from '../support/test-relay';
import { RunningAppium, runWdio, startFakeAppium, type WdioRun } from './hub-kit';

// Two child starts; on a loaded machine one start can pass a minute.
jest.setTimeout(400_000);

const DEVICE = 'fake-android-lab-restart';

describe('device tests: a relay killed mid-session', () => {
  let dataDir: string;
  let relay: ChildRelay | null = null;
  let database: Awaited<ReturnType<typeof createTestDatabase>> = null;
  let appium: RunningAppium;
  let agent: AgentDaemon | null = null;
  let client: WdioRun | null = null;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-hub-restart-'));
    [database, appium] = await Promise.all([createTestDatabase(), startFakeAppium()]);
  }, 120_000);
  afterAll(async () => {
    client?.kill();
    await agent?.stop();
    await relay?.kill();
    await appium?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends the session it left running at the next start ("the relay restarted"), keeping the client’s svc:status; the run is not running', async () => {
    const env: Record<string, string> = database ? { SVC_DATABASE_URL: database.url } : {};
    relay = await startChildRelay(dataDir, env, 180_000, true);
    const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => sendJson(relay!.url, method, path, body, headers);
    const cookie = await firstAdminCookie(relay.url);
    const pat = async (scope: string) => (await json('POST', '/tokens', { name: scope, scope }, { cookie })).body.token as string;
    const [devicesPat, agentPat, uploadPat] = [await pat('devices'), await pat('agent'), await pat('builds:write')];
    const upload = await send(relay.url, {
      method: 'POST',
      path: '/api/v1/builds',
      headers: { authorization: `Bearer ${uploadPat}`, 'content-type': 'multipart/form-data; boundary=hubrestart' },
      body: multipartBody('hubrestart', [{ name: 'file', value: readFileSync(fixture('string-label.apk')), filename: 'a.apk' }]),
    });
    expect(upload.status).toBe(201);
    const buildId = (JSON.parse(upload.text) as { id: number }).id;

    agent = new AgentDaemon({
      relayUrl: relay.url,
      token: agentPat,
      name: 'lab-restart',
      backend: new FakeBackend('lab-restart', { enabled: false }),
      version: 'test',
      backoffBaseMs: 50,
      backoffCapMs: 500,
      log: () => undefined,
      appium: new AppiumBridge(appium.url, new FakeAppModels()),
    });
    agent.start();
    const devices = async () => (await json('GET', '/devices', undefined, { cookie })).body.items as { session_id: string; holder: unknown }[];
    expect(await eventually(async () => (await devices()).some((d) => d.session_id === DEVICE), 30_000)).toBe(true);

    client = runWdio('mark-then-hold', { url: `${relay.url}/wd/hub`, token: devicesPat, caps: { 'svc:build': buildId, 'svc:name': 'ci / killed' } });
    const { holding } = await client.firstLine;
    expect(holding).toEqual(expect.any(String));
    const runs = async () => (await json('GET', `/builds/${buildId}/test-runs`, undefined, { cookie })).body.runs as Record<string, any>[];
    // The mark is in the session's row as soon as the client got its answer, while the session runs.
    const [running] = await runs();
    expect(running).toMatchObject({ name: 'ci / killed', state: 'running' });
    expect(running.sessions).toEqual([
      expect.objectContaining({ id: holding, status: 'running', verdict: 'failed', reason: 'the inbox never showed', end_reason: null, ended_at: null }),
    ]);

    expect(await relay.kill('SIGKILL')).toBe('SIGKILL');
    client.kill();
    relay = await startChildRelay(dataDir, env, 180_000, true);
    const [ended] = await runs();
    expect(ended.state).toBe('failed');
    expect(ended.sessions).toEqual([
      expect.objectContaining({
        id: holding,
        device_session_id: DEVICE,
        status: 'failed',
        verdict: 'failed',
        reason: 'the inbox never showed',
        end_reason: 'the relay restarted',
        ended_at: expect.stringMatching(/Z$/),
      }),
    ]);
    expect(relay.output()).toContain('Ended 1 hub session(s) a relay left running (the relay restarted)');
  });
});
