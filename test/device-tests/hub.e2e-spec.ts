import { EventEmitter2 } from '@nestjs/event-emitter';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { HubDeviceTestResults } from '../../src/device-tests/results/hub-device-test-results';
import { agentToken, device, TestPeer, upgradeRefusal, wsUrl } from '../agents/agent-kit';
import { request as httpRequest } from 'node:http';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { HubSessionsService } from '../../src/device-tests/hub/hub-sessions.service';
import { uploadTestBuild } from '../support/builds';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { RunningAppium, runWdio, startAppiumAgent, startFakeAppium } from './hub-kit';

const newSession = (caps: object) => ({ capabilities: { alwaysMatch: caps, firstMatch: [{}] } });

/** Polls an async condition. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The WebDriver hub end to end: a real WebdriverIO client, the relay, a fake agent, a real Appium server with its fake driver. */
describe('WebDriver hub', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let devicesPat: string;
  let appium: RunningAppium;
  let agent: AgentDaemon;
  let build: { id: number; appId: number };

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    devicesPat = await members.pat(qa, 'devices');
    appium = await startFakeAppium();
    agent = await startAppiumAgent(relay, await agentToken(members), 'lab-1', appium);
    build = await uploadTestBuild(members, qa);
  }, 120_000);
  afterAll(async () => {
    await agent?.stop();
    await appium?.close();
    await relay?.close();
  });

  const hub = () => `${relay.url}/wd/hub`;
  /**
   * A hand-driven agent's next WebDriver request that deletes a session. Before deleting, the relay
   * asks for the session's evidence (final screenshot, device log): answered as an Appium without them.
   */
  const deleteOf = async (peer: TestPeer) => {
    for (;;) {
      const request = await peer.nextRequest('webdriver');
      if ((request.params as { method?: string }).method === 'DELETE') return request;
      peer.send({ type: 'response', id: request.id, ok: true, result: { status: 404, body: { value: { error: 'unknown command', message: 'not here', stacktrace: '' } } } });
    }
  };
  const post = (path: string, body: object, token = devicesPat) =>
    relay.http().post(path).set('Authorization', `Bearer ${token}`).send(body);
  const holderOf = async (sessionId: string) =>
    (await members.withPat(await members.pat(qa, 'view'), 'get', '/api/v1/devices').expect(200)).body.items.find(
      (d: { session_id: string }) => d.session_id === sessionId,
    ).holder;

  it('runs a suite written for an Android device unchanged, on the build it names, with the PAT as HTTP Basic password', async () => {
    const out = await runWdio('login', { url: hub(), token: devicesPat, caps: { 'svc:build': build.id, 'svc:name': 'ci / login' } }).result;
    expect(out).toEqual({
      sessionId: expect.any(String),
      typed: 'ada',
      clicks: '1',
      buttonTag: 'android.widget.Button',
      title: true,
      missing: false,
      deleted: true,
    });
    expect(await holderOf('fake-android-lab-1')).toBeNull();
  }, 60_000);

  it('takes Bearer credentials on Appium 2’s base path, and svc:build as the newest build of an app', async () => {
    const out = await runWdio('login', {
      url: relay.url,
      token: devicesPat,
      auth: 'bearer',
      caps: { platformName: 'iOS', 'appium:automationName': 'XCUITest', 'appium:deviceName': 'iPhone 16' },
    }).result;
    // Without a build the iOS device runs an app model of iOS elements; an Android build on it is refused.
    expect(out).toEqual(expect.objectContaining({ typed: 'ada', buttonTag: 'XCUIElementTypeButton', deleted: true }));
    const wrong = await post('/session', newSession({ platformName: 'iOS', 'svc:build': build.id }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.value).toEqual({ error: 'invalid argument', message: `Build ${build.id} is an Android build; platformName asks for iOS`, stacktrace: '' });
    // The newest build of the app (on any branch): its platform picks the device.
    const newest = await post('/session', newSession({ 'svc:build': { app: build.appId } }));
    expect(newest.status).toBe(200);
    expect(await holderOf('fake-android-lab-1')).toEqual(expect.objectContaining({ session_id: newest.body.value.sessionId, build_id: build.id }));
    // Its commands go by that id alone: another member (here a Viewer) sees who holds the device, not the key.
    const viewer = await members.member('Viewer');
    const seen = (await members.as(viewer, 'get', '/api/v1/devices').expect(200)).body.items.find((d: { session_id: string }) => d.session_id === 'fake-android-lab-1');
    expect(seen.holder).toEqual(expect.objectContaining({ session_id: null, build_id: build.id }));
    await relay.http().delete(`/session/${newest.body.value.sessionId}`).expect(200);
  }, 60_000);

  it('refuses missing and insufficient credentials in WebDriver’s error shape, and no Viewer holds the devices scope', async () => {
    const none = await relay.http().post('/wd/hub/session').send(newSession({ platformName: 'Android' }));
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ value: { error: 'unknown error', message: 'Unauthorized', stacktrace: '' } });
    const viewOnly = await post('/wd/hub/session', newSession({ platformName: 'Android' }), await members.pat(qa, 'view'));
    expect(viewOnly.status).toBe(403);
    expect(viewOnly.body.value.message).toMatch(/scope/);
    const viewer = await members.member('Viewer');
    const issued = await members.as(viewer, 'post', '/api/v1/tokens').send({ name: 'ci', scope: 'devices' });
    expect(issued.status).toBe(403);
    expect(issued.body).toEqual({ error: 'Viewers cannot hold the devices scope' });
    const unknown = await relay.http().get('/wd/hub/session/no-such-session/url');
    expect(unknown.status).toBe(404);
    expect(unknown.body.value.error).toBe('invalid session id');
  });

  it('refuses a session on an agent without Appium with a sentence saying so', async () => {
    const plain = await TestPeer.agent(relay, await agentToken(members), 'plain-1');
    await plain.announce(relay, [{ ...device('plain-android'), name: 'Galaxy S24' }]);
    const res = await post('/wd/hub/session', newSession({ platformName: 'Android', 'appium:deviceName': 'Galaxy S24' }));
    plain.close();
    expect(res.status).toBe(500);
    expect(res.body.value.error).toBe('session not created');
    expect(res.body.value.message).toMatch(/\(plain-1\) run without Appium: start the agent with `svc agent --appium/);
  });

  it('holds the device for the session: GET /devices names the holder, a manual control socket is refused, a second session queues and times out naming what was missing', async () => {
    const held = runWdio('hold', { url: hub(), token: devicesPat, caps: { 'svc:build': build.id, 'svc:name': 'ci / hold' } });
    const { holding } = await held.firstLine;
    expect(holding).toEqual(expect.any(String));
    expect(await holderOf('fake-android-lab-1')).toEqual({
      session_id: holding,
      member: expect.any(String),
      build_id: build.id,
      run: 'ci / hold',
      since: expect.stringMatching(/Z$/),
    });
    const manual = await upgradeRefusal(wsUrl(relay, '/api/v1/sessions/fake-android-lab-1/connect'), {
      Authorization: `Bearer ${await members.pat(qa, 'view')}`,
    });
    expect(manual.status).toBe(409);
    const queued = await post('/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 1 }));
    expect(queued.status).toBe(500);
    expect(queued.body.value.message).toBe(
      'No free device matching platformName Android within svc:queueTimeout (1 s): 1 match, 1 in use, 0 offline or not booted',
    );
    held.release();
    expect((await held.result).deleted).toBe(true);
    expect(await holderOf('fake-android-lab-1')).toBeNull();
  }, 60_000);

  it('gives a queued session the device as soon as the holder deletes its session', async () => {
    const held = runWdio('hold', { url: hub(), token: devicesPat });
    await held.firstLine;
    const waiting = post('/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 60 }));
    held.release();
    const res = await waiting;
    expect(res.status).toBe(200);
    const id = res.body.value.sessionId;
    await relay.http().delete(`/wd/hub/session/${id}`).expect(200);
    expect(await holderOf('fake-android-lab-1')).toBeNull();
  }, 60_000);

  it('ends a session nobody talks to for appium:newCommandTimeout, and frees its device', async () => {
    const res = await post('/wd/hub/session', newSession({ platformName: 'Android', 'appium:newCommandTimeout': 1 }));
    expect(res.status).toBe(200);
    const id = res.body.value.sessionId;
    const deadline = Date.now() + 15_000;
    while ((await holderOf('fake-android-lab-1')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await holderOf('fake-android-lab-1')).toBeNull();
    const late = await relay.http().get(`/wd/hub/session/${id}/url`);
    expect(late.status).toBe(404);
    expect(late.body.value).toEqual({ error: 'invalid session id', message: `Session ${id} ended (idle)`, stacktrace: '' });
  }, 60_000);

  it('takes the client’s svc:status as the session’s verdict: the build’s device tests fail, and device-tests.changed names the build', async () => {
    const changed: number[] = [];
    const listener = (event: { buildId: number }) => changed.push(event.buildId);
    relay.app.get(EventEmitter2).on('device-tests.changed', listener);
    const out = await runWdio('status', { url: hub(), token: devicesPat, caps: { 'svc:build': build.id } }).result;
    relay.app.get(EventEmitter2).off('device-tests.changed', listener);
    expect(out.deleted).toBe(true);
    expect(changed).toEqual([build.id, build.id]);
    expect(await relay.app.get(HubDeviceTestResults).forBuild(build.id)).toEqual({ state: 'failed' });
    expect(await relay.app.get(HubDeviceTestResults).forBuild(build.id + 1000)).toEqual({ state: 'none' });
  }, 60_000);

  it('ends the session at once, and frees its device, when its client vanishes in the middle of a command', async () => {
    // A hand-driven agent, so that a command stays in flight for as long as the test likes.
    const slow = await TestPeer.agent(relay, await agentToken(members), 'slow-1');
    slow.send({ type: 'hello', agent: { version: 'test', os: 'linux', hostname: 'test', appium: true } });
    slow.send({ type: 'devices', devices: [{ ...device('slow-android'), name: 'Pixel Slow' }] });
    await eventually(async () => !!relay.app.get(AgentDirectory).locate('slow-android')?.connection, 10_000);
    // supertest sends when asked for its result: then() starts the request now.
    const creating = post('/wd/hub/session', newSession({ platformName: 'Android', 'appium:deviceName': 'Pixel Slow' })).then((res) => res);
    const create = await slow.nextRequest('webdriver');
    slow.send({ type: 'response', id: create.id, ok: true, result: { status: 200, body: { value: { sessionId: 'slow-session', capabilities: {} } } } });
    expect((await creating).status).toBe(200);
    // The client sends a command and is gone before its answer.
    const command = httpRequest(`${relay.url}/wd/hub/session/slow-session/element`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    command.on('error', () => undefined);
    command.end(JSON.stringify({ using: 'accessibility id', value: 'login_button' }));
    expect((await slow.nextRequest('webdriver')).params).toEqual(expect.objectContaining({ method: 'POST', path: '/session/slow-session/element' }));
    command.destroy();
    const ending = await deleteOf(slow);
    expect(ending.params).toEqual(expect.objectContaining({ method: 'DELETE', path: '/session/slow-session' }));
    slow.send({ type: 'response', id: ending.id, ok: true, result: { status: 200, body: { value: null } } });
    await eventually(async () => (await holderOf('slow-android')) === null, 10_000);
    const late = await relay.http().get('/wd/hub/session/slow-session/url');
    expect(late.body.value).toEqual({ error: 'invalid session id', message: 'Session slow-session ended (client gone)', stacktrace: '' });
    slow.close();
  }, 60_000);

  it('ends the session of a client killed between commands after newCommandTimeout, and frees its device', async () => {
    const client = runWdio('hold', { url: hub(), token: devicesPat, caps: { 'appium:newCommandTimeout': 2 } });
    const { holding } = await client.firstLine;
    client.kill();
    await eventually(async () => (await holderOf('fake-android-lab-1')) === null, 15_000);
    const late = await relay.http().get(`/wd/hub/session/${holding}/url`);
    expect(late.body.value.message).toBe(`Session ${holding} ended (idle)`);
  }, 60_000);

  it('never gives a device a person controls (device-session socket) to an automated session; it does once they close', async () => {
    const person = new TestPeer(wsUrl(relay, '/api/v1/sessions/fake-android-lab-1/connect'), { Authorization: `Bearer ${await members.pat(qa, 'view')}` });
    await person.opened;
    const refused = await post('/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 1 }));
    expect([refused.status, refused.body.value.message]).toEqual([
      500,
      'No free device matching platformName Android within svc:queueTimeout (1 s): 1 match, 1 in use, 0 offline or not booted',
    ]);
    // Waiting meanwhile: granted when the person closes.
    const waiting = post('/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 60 })).then((res) => res);
    await eventually(async () => relay.app.get(HubSessionsService).waiting === 1, 10_000);
    person.close();
    const granted = await waiting;
    expect(granted.status).toBe(200);
    await relay.http().delete(`/wd/hub/session/${granted.body.value.sessionId}`).expect(200);
  }, 60_000);

  it('takes turns between members in the queue: one member’s burst does not starve another’s later request', async () => {
    const sessions = relay.app.get(HubSessionsService);
    const burster = await members.member('Developer');
    const burstPat = await members.pat(burster, 'devices');
    const ask = (token: string) => post('/wd/hub/session', newSession({ platformName: 'Android', 'svc:queueTimeout': 120 }), token);
    const holder = await ask(devicesPat);
    expect(holder.status).toBe(200);
    const granted: string[] = [];
    const request = (name: string, token: string) =>
      ask(token).then((res) => {
        expect(res.status).toBe(200);
        granted.push(name);
        return res.body.value.sessionId as string;
      });
    // One after the other, each queued before the next is sent: the order they arrive in is the order asked.
    const queued = async (name: string, token: string) => {
      const before = sessions.waiting;
      const pending = request(name, token);
      await eventually(async () => sessions.waiting === before + 1, 10_000);
      return { pending }; // wrapped: an async function's returned promise would be waited for
    };
    const burst = [(await queued('burst 1', burstPat)).pending, (await queued('burst 2', burstPat)).pending, (await queued('burst 3', burstPat)).pending];
    const other = (await queued('other', devicesPat)).pending;
    // The device passes on as each holder deletes its session: burst 1 (oldest), then the other member, then the burst's rest.
    let current = holder.body.value.sessionId as string;
    for (const next of [burst[0], other, burst[1], burst[2]]) {
      await relay.http().delete(`/wd/hub/session/${current}`).expect(200);
      current = await next;
    }
    await relay.http().delete(`/wd/hub/session/${current}`).expect(200);
    expect(granted).toEqual(['burst 1', 'other', 'burst 2', 'burst 3']);
  }, 90_000);

  it('ends the session and frees the device when its agent disconnects', async () => {
    const res = await post('/wd/hub/session', newSession({ platformName: 'Android' }));
    expect(res.status).toBe(200);
    const id = res.body.value.sessionId;
    await agent.stop();
    const deadline = Date.now() + 15_000;
    while ((await holderOf('fake-android-lab-1')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await holderOf('fake-android-lab-1')).toBeNull();
    const late = await relay.http().get(`/wd/hub/session/${id}/url`);
    expect(late.body.value).toEqual({ error: 'invalid session id', message: `Session ${id} ended (agent offline)`, stacktrace: '' });
  }, 60_000);
});
