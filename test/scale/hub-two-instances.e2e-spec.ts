import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { HubSessionsService } from '../../src/device-tests/hub/hub-sessions.service';
import { AppiumBridge } from '../../src/agent-daemon/appium/appium-bridge';
import { FakeAppModels } from '../../src/agent-daemon/appium/fake-app-model';
import { FakeBackend } from '../../src/agent-daemon/backends/fake-backend';
import { agentToken, TestPeer, upgradeRefusal, wsUrl } from '../agents/agent-kit';
import { RunningAppium, runWdio, startAppiumAgent, startFakeAppium } from '../device-tests/hub-kit';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { attachBuild } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestS3Server, TestS3Server } from '../support/s3-server';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { ClusterTestEnv, clusterTestEnv } from './cluster-env';

const newSession = (caps: object) => ({ capabilities: { alwaysMatch: caps, firstMatch: [{}] } });
const ANDROID = 'fake-android-lab-b';

/** Polls an async condition (agent-kit's until() takes a synchronous one). */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The WebDriver hub across two relay instances (issue 37 "Done when"): the client talks to A, the
 * device's agent (a real Appium with its fake driver behind it) is connected to B; reservations are
 * cluster-wide (Redis), and an instance that is lost (kill -9) takes its agents' sessions and its
 * own reservations with it.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'WebDriver hub across two instances (PostgreSQL + Redis)', () => {
  let cluster: ClusterTestEnv;
  let s3: TestS3Server;
  let env: Record<string, string>;
  let savedCredentials: { id?: string; secret?: string };
  let a: TestRelay;
  let b: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let devicesPat: string;
  let viewPat: string;
  let token: string;
  let appium: RunningAppium;
  let agent: AgentDaemon;
  let build: { id: number; appId: number };

  beforeAll(async () => {
    cluster = await clusterTestEnv();
    // One store for both (S3): the hub on A checks the build's SHA-256, the agent downloads it from B.
    s3 = await startTestS3Server();
    const storage = s3.env('relay');
    savedCredentials = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = storage.AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = storage.AWS_SECRET_ACCESS_KEY;
    env = { ...storage, ...cluster.env };
    a = await startTestRelay(env);
    b = await startTestRelay(env);
    members = new MemberFactory(a);
    qa = await members.member('QA');
    devicesPat = await members.pat(qa, 'devices');
    viewPat = await members.pat(qa, 'view');
    token = await agentToken(members);
    appium = await startFakeAppium();
    agent = await startAppiumAgent(b, token, 'lab-b', appium);
    build = await uploadTestBuild(members, qa);
  }, 120_000);
  afterAll(async () => {
    await agent?.stop();
    await appium?.close();
    await a?.close();
    await b?.close();
    await cluster?.dispose();
    await s3?.close();
    process.env.AWS_ACCESS_KEY_ID = savedCredentials?.id;
    process.env.AWS_SECRET_ACCESS_KEY = savedCredentials?.secret;
    if (savedCredentials?.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (savedCredentials?.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  const post = (relay: TestRelay | string, path: string, body: object) =>
    (typeof relay === 'string' ? request(relay) : relay.http()).post(path).set('Authorization', `Bearer ${devicesPat}`).send(body);
  const holderOn = async (relay: TestRelay, sessionId: string) =>
    (await relay.http().get('/api/v1/devices').set('Authorization', `Bearer ${viewPat}`).expect(200)).body.items.find(
      (d: { session_id: string }) => d.session_id === sessionId,
    )?.holder;
  const freed = async (relay: TestRelay, sessionId: string, timeoutMs = 20_000) => {
    await eventually(async () => (await holderOn(relay, sessionId)) === null, timeoutMs);
    return holderOn(relay, sessionId);
  };

  it('runs a WebdriverIO suite through A on a device whose agent is connected to B', async () => {
    const out = await runWdio('login', { url: `${a.url}/wd/hub`, token: devicesPat, caps: { 'svc:build': build.id, 'svc:name': 'ci / across' } }).result;
    expect(out).toEqual({ sessionId: expect.any(String), typed: 'ada', clicks: '1', buttonTag: 'android.widget.Button', title: true, missing: false, deleted: true });
    expect([await holderOn(a, ANDROID), await holderOn(b, ANDROID)]).toEqual([null, null]);
  }, 60_000);

  it('holds the device for the whole cluster: B names A’s holder, queues its own request, refuses a person’s control socket', async () => {
    const held = runWdio('hold', { url: `${a.url}/wd/hub`, token: devicesPat, caps: { 'svc:name': 'ci / held on A' } });
    const { holding } = await held.firstLine;
    expect(await holderOn(b, ANDROID)).toEqual(expect.objectContaining({ session_id: holding, run: 'ci / held on A' }));
    const onB = await post(b, '/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 1 }));
    expect(onB.status).toBe(500);
    expect(onB.body.value.message).toBe('No free device matching platformName Android within svc:queueTimeout (1 s): 1 match, 1 in use, 0 offline or not booted');
    const manual = await upgradeRefusal(wsUrl(b, `/api/v1/sessions/${ANDROID}/connect`), { Authorization: `Bearer ${viewPat}` });
    expect(manual.status).toBe(409);
    // Queued on B while A holds it: B gets it once A's client deletes its session.
    // then(): supertest sends when asked for its result; waiting on B from now on.
    const waiting = post(b, '/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 60 })).then((res) => res);
    await eventually(async () => b.app.get(HubSessionsService).waiting === 1, 10_000);
    held.release();
    expect((await held.result).deleted).toBe(true);
    const granted = await waiting;
    expect(granted.status).toBe(200);
    expect(await holderOn(a, ANDROID)).toEqual(expect.objectContaining({ session_id: granted.body.value.sessionId }));
    await b.http().delete(`/wd/hub/session/${granted.body.value.sessionId}`).expect(200);
    expect(await freed(a, ANDROID)).toBeNull();
  }, 90_000);

  it('gives the one device once when A and B are asked for it at the same moment', async () => {
    const caps = newSession({ platformName: 'Android', 'svc:queueTimeout': 1 });
    const answers = await Promise.all([post(a, '/wd/hub/session', caps), post(b, '/wd/hub/session', caps)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 500]);
    const [won, winner] = answers[0].status === 200 ? [answers[0], a] : [answers[1], b];
    await winner.http().delete(`/wd/hub/session/${won.body.value.sessionId}`).expect(200);
    expect(await freed(a, ANDROID)).toBeNull();
  }, 60_000);

  it('keeps A’s sessions off a device a person controls through B, and gives it once they close', async () => {
    const person = new TestPeer(wsUrl(b, `/api/v1/sessions/${ANDROID}/connect`), { Authorization: `Bearer ${viewPat}` });
    await person.opened;
    const refused = await post(a, '/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 1 }));
    expect(refused.body.value.message).toBe('No free device matching platformName Android within svc:queueTimeout (1 s): 1 match, 1 in use, 0 offline or not booted');
    person.close();
    await person.closed;
    const granted = await post(a, '/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 30 }));
    expect(granted.status).toBe(200);
    await a.http().delete(`/wd/hub/session/${granted.body.value.sessionId}`).expect(200);
  }, 60_000);

  it('ends A’s session when its agent leaves B: the device is free and the client’s next command gets invalid session id', async () => {
    const res = await post(a, '/wd/hub/session', newSession({ platformName: 'Android' }));
    expect(res.status).toBe(200);
    const id = res.body.value.sessionId;
    await agent.stop();
    expect(await freed(a, ANDROID)).toBeNull();
    const late = await a.http().get(`/wd/hub/session/${id}/url`);
    expect([late.status, late.body.value]).toEqual([404, { error: 'invalid session id', message: `Session ${id} ended (agent offline)`, stacktrace: '' }]);
  }, 60_000);

  describe('an instance lost (kill -9)', () => {
    let c: ChildRelay | null = null;
    let dataDir: string;
    let onC: AgentDaemon | null = null;
    afterAll(async () => {
      await onC?.stop();
      await c?.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('ends the sessions on A whose agent it held, and frees the device it held for its own session', async () => {
      await agent.stop(); // B's agent (stopped already when the whole file runs): only C's devices match below
      dataDir = mkdtempSync(join(tmpdir(), 'svc-hub-lost-'));
      c = await startChildRelay(dataDir, { ...env, AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY! }, 90_000, true);
      const backend = new FakeBackend('lab-c', { enabled: false });
      onC = new AgentDaemon({ relayUrl: c.url, token, name: 'lab-c', backend, version: 'test', backoffBaseMs: 50, backoffCapMs: 500, log: () => undefined, appium: new AppiumBridge(appium.url, new FakeAppModels()) });
      onC.start();
      await eventually(async () => (await holderOn(a, 'fake-ios-lab-c')) === null, 30_000);
      const iosBuild = (await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'xml-root.app.zip').expect(201)).body as { id: number };
      // A's session on C's agent (Android), and C's own session (iOS): both on devices of C's agent.
      const fromA = await post(a, '/wd/hub/session', newSession({ platformName: 'Android', 'appium:deviceName': 'Pixel 8', 'svc:queueTimeout': 30 }));
      expect([fromA.status, fromA.body.value?.message]).toEqual([200, undefined]);
      const fromC = await post(c.url, '/wd/hub/session', newSession({ platformName: 'iOS', 'svc:name': 'held by C', 'svc:build': iosBuild.id }));
      expect(fromC.status).toBe(200);
      expect(await holderOn(a, 'fake-ios-lab-c')).toEqual(expect.objectContaining({ run: 'held by C' }));
      // C dies without a word: no AgentOfflineEvent reaches A (C's agent keeps trying to reconnect to it).
      await c.kill('SIGKILL');
      c = null;
      expect(await freed(a, 'fake-android-lab-c', 30_000)).toBeNull();
      expect(await freed(a, 'fake-ios-lab-c', 30_000)).toBeNull();
      const late = await a.http().get(`/wd/hub/session/${fromA.body.value.sessionId}/url`);
      expect(late.body.value.error).toBe('invalid session id');
      // C's own session is in its run's list: A, alive, ends it once C's presence has lapsed (C never restarts).
      const runsOf = async () => (await a.http().get(`/api/v1/builds/${iosBuild.id}/test-runs`).set('Authorization', `Bearer ${devicesPat}`).expect(200)).body.runs;
      await eventually(async () => (await runsOf())[0]?.state !== 'running', 40_000);
      const [run] = await runsOf();
      expect(run).toMatchObject({ name: 'held by C', state: 'none' }); // ended without a mark or a report
      expect(run.sessions).toEqual([expect.objectContaining({ id: fromC.body.value.sessionId, status: 'ended', end_reason: 'its relay instance was lost', ended_at: expect.stringMatching(/Z$/) })]);
    }, 150_000);
  });
});
