import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { agentToken, startFakeAgent, TestPeer, until, wsUrl } from '../agents/agent-kit';
import { fixture } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** GET /devices across agents, and the device methods the reference agent serves (install_build included). */
describe('devices and device methods', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewPat: string;
  let agent: AgentDaemon;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewPat = await members.pat(qa, 'view');
    agent = await startFakeAgent(relay, await agentToken(members), 'lab-1');
  });
  afterAll(async () => {
    await agent.stop();
    await relay.close();
  });

  describe('GET /devices', () => {
    it('lists every device of every agent with its agent and whether it is online, to a cookie or a view PAT', async () => {
      const expected = [
        { session_id: 'fake-off-lab-1', name: 'iPad Air', platform: 'ios', state: 'shutdown', os_version: '17.5' },
        { session_id: 'fake-ios-lab-1', name: 'iPhone 16', platform: 'ios', state: 'booted', os_version: '18.2' },
        { session_id: 'fake-android-lab-1', name: 'Pixel 8', platform: 'android', state: 'booted', os_version: '15' },
      ].map((d) => ({ ...d, agent: 'lab-1', agent_online: true, holder: null }));
      const byPat = await members.withPat(viewPat, 'get', '/api/v1/devices').expect(200);
      expect(byPat.body).toEqual({ items: expected });
      expect(byPat.headers['cache-control']).toBe('no-store');
      await members.as(qa, 'get', '/api/v1/devices').expect(200, { items: expected });
    });

    it('refuses no credentials (401) and a PAT without the view scope (403)', async () => {
      await relay.http().get('/api/v1/devices').expect(401, { error: 'Unauthorized' });
      const writeOnly = await members.pat(qa, 'builds:write');
      const res = await members.withPat(writeOnly, 'get', '/api/v1/devices').expect(403);
      expect(res.body.error).toMatch(/scope/i);
    });

    it('keeps the devices of an agent that went away, marked offline', async () => {
      const second = await startFakeAgent(relay, await agentToken(members), 'lab-0');
      await second.stop();
      await until(() => !relay.app.get(AgentDirectory).locate('fake-ios-lab-0')?.connection);
      const items = (await members.withPat(viewPat, 'get', '/api/v1/devices').expect(200)).body.items;
      expect(items.map((d: { agent: string }) => d.agent)).toEqual(['lab-0', 'lab-0', 'lab-0', 'lab-1', 'lab-1', 'lab-1']);
      expect(items.filter((d: { agent: string }) => d.agent === 'lab-0').every((d: { agent_online: boolean }) => !d.agent_online)).toBe(true);
    });
  });

  describe('device methods through the device-session socket (reference agent, fake backend)', () => {
    const open = async (sessionId: string) => {
      const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/connect`), { Authorization: `Bearer ${viewPat}` });
      await peer.opened;
      return peer;
    };
    let counter = 0;
    const call = async (peer: TestPeer, method: string, params: Record<string, unknown>) => {
      const id = `r${++counter}`;
      peer.send({ type: 'request', id, method, params });
      return (await peer.next((m) => m.json?.id === id, 15_000)).json;
    };

    it('install_build downloads the build from the relay with the agent token and installs those exact bytes', async () => {
      const build = await uploadTestBuild(members, qa);
      const peer = await open('fake-android-lab-1');
      const answer = await call(peer, 'install_build', { buildId: build.id, url: `/api/v1/builds/${build.id}/download` });
      const bytes = readFileSync(fixture('string-label.apk'));
      expect(answer).toEqual({
        type: 'response',
        id: expect.any(String),
        ok: true,
        result: {
          installed: true,
          fileName: expect.stringMatching(/\.apk$/),
          bytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        },
      });
      const event = await peer.next((m) => m.json?.type === 'event');
      expect(event.json).toMatchObject({ event: 'installed', data: { installed: true } });
      peer.close();
    });

    it('install_build refuses another origin (the agent token must not leave its relay) and a missing build', async () => {
      const peer = await open('fake-ios-lab-1');
      const foreign = await call(peer, 'install_build', { url: 'https://elsewhere.example.com/build.apk' });
      expect(foreign).toMatchObject({ ok: false, error: { code: 'failed', message: expect.stringContaining('elsewhere.example.com') } });
      const missing = await call(peer, 'install_build', { url: '/api/v1/builds/999999/download' });
      expect(missing).toMatchObject({ ok: false, error: { code: 'failed', message: expect.stringContaining('Build not found') } });
      const noUrl = await call(peer, 'install_build', {});
      expect(noUrl).toMatchObject({ ok: false, error: { code: 'failed', message: expect.stringContaining('download url') } });
      peer.close();
    });

    it('serves tap, swipe, type_text, press_button and launch_app, each echoed as an event', async () => {
      const peer = await open('fake-ios-lab-1');
      const actions: [string, Record<string, unknown>, string, object][] = [
        ['tap', { x: 0.5, y: 0.9 }, 'tapped', { x: 0.5, y: 0.9 }],
        ['swipe', { fromX: 0.5, fromY: 0.8, toX: 0.5, toY: 0.2 }, 'swipe', { fromX: 0.5, fromY: 0.8, toX: 0.5, toY: 0.2, durationMs: 300 }],
        ['type_text', { text: 'hello world' }, 'type_text', { text: 'hello world' }],
        ['press_button', { button: 'home' }, 'press_button', { button: 'home' }],
        ['launch_app', { bundleId: 'com.example.app' }, 'launch_app', { bundleId: 'com.example.app' }],
      ];
      for (const [method, params, event, data] of actions) {
        expect(await call(peer, method, params)).toMatchObject({ ok: true, result: {} });
        expect((await peer.next((m) => m.json?.type === 'event')).json).toEqual({
          type: 'event',
          sessionId: 'fake-ios-lab-1',
          event,
          data,
        });
      }
      peer.close();
    });

    it('answers bad params with a message naming the field, unknown methods unsupported, shut-down devices not_booted', async () => {
      const peer = await open('fake-ios-lab-1');
      expect(await call(peer, 'tap', { x: 2, y: 0.5 })).toMatchObject({
        ok: false,
        error: { code: 'failed', message: 'x must be a number from 0 to 1 (a fraction of the screen)' },
      });
      expect(await call(peer, 'press_button', { button: 'turbo' })).toMatchObject({
        ok: false,
        error: { code: 'failed', message: expect.stringContaining('button must be one of home, back') },
      });
      expect(await call(peer, 'teleport', {})).toMatchObject({ ok: false, error: { code: 'unsupported' } });
      peer.close();
      const off = await open('fake-off-lab-1');
      expect(await call(off, 'tap', { x: 0.1, y: 0.1 })).toMatchObject({ ok: false, error: { code: 'not_booted' } });
      off.close();
    });
  });
});
