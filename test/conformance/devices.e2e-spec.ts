import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { agentToken, startFakeAgent, TestPeer } from '../agents/agent-kit';
import type { TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { useTestRelay } from '../support/use-relay';
import { expectError, expectShape, HOUR, RECORDING_SHAPE, SAMPLE_SHAPE } from './support';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));

describe('conformance: §4 Recordings, Agents, Sessions', () => {
  const ctx = useTestRelay({ SVC_SCREENSHOT_TIMEOUT_MS: '300', SVC_UI_TREE_TIMEOUT_MS: '300' });
  let qa: TestMember;
  let viewer: TestMember;
  let fake: AgentDaemon;

  beforeAll(async () => {
    qa = await ctx.members.member('QA');
    viewer = await ctx.members.member('Viewer');
    fake = await startFakeAgent(ctx.relay, await agentToken(ctx.members), 'conf-agent');
  });
  afterAll(async () => {
    await fake?.stop();
  });

  describe('Recordings', () => {
    it('upload: 200 exactly { url: "/api/v1/recordings/<filename>" }; list: Recording items; file deleted after 72 h', async () => {
      const res = await ctx.members
        .as(qa, 'post', '/api/v1/recordings/upload?sessionId=fake-ios-conf-agent&buildId=5')
        .attach('anything', WEBM, 'x.webm');
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { url: expect.stringMatching(/^\/api\/v1\/recordings\/[^/]+$/) },
      });
      const list = await ctx.members.as(viewer, 'get', '/api/v1/recordings?buildId=5').expect(200);
      expect(list.body).toHaveLength(1);
      expectShape(list.body[0], RECORDING_SHAPE);
      expect(list.body[0]).toMatchObject({ url: res.body.url, sessionId: 'fake-ios-conf-agent', fileSize: WEBM.length });
      expect(Date.parse(list.body[0].expiresAt) - Date.parse(list.body[0].createdAt)).toBe(72 * HOUR);
      const all = await ctx.members.as(viewer, 'get', '/api/v1/recordings').expect(200);
      expect(all.body.length).toBeGreaterThanOrEqual(1);
      const file = await ctx.members.as(viewer, 'get', res.body.url).buffer(true).parse(rawBody).expect(200);
      expect(Buffer.compare(file.body, WEBM)).toBe(0);
      const past = await ctx.members.as(viewer, 'get', res.body.url).set('Range', `bytes=${WEBM.length + 10}-`);
      expectError(past, 416);
      expect(past.headers['content-range']).toBe(`bytes */${WEBM.length}`);
      expectError(await ctx.members.as(qa, 'post', '/api/v1/recordings/upload').field('x', 'y'), 400, 'file required');
      ctx.relay.clock.advance(72 * HOUR + 1000);
      expectError(await ctx.members.as(viewer, 'get', res.body.url), 404);
      expect((await ctx.members.as(viewer, 'get', '/api/v1/recordings?buildId=5').expect(200)).body).toEqual([]);
    });
  });

  describe('Agents', () => {
    it('GET /agents: array of name strings; GET /agents/:name/resources: array of samples; range values', async () => {
      const peer = await TestPeer.agent(ctx.relay, await agentToken(ctx.members), 'sampler');
      peer.send({ type: 'resources', cpu_percent: 12.5, mem_percent: 40 });
      let names: string[] = [];
      for (let i = 0; i < 100 && !names.includes('sampler'); i++) {
        names = (await ctx.members.as(viewer, 'get', '/api/v1/agents').expect(200)).body;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(names).toContain('sampler');
      expect(names.every((n) => typeof n === 'string')).toBe(true);
      const samples = await ctx.members.as(viewer, 'get', '/api/v1/agents/sampler/resources').expect(200);
      expect(samples.body).toHaveLength(1);
      expectShape(samples.body[0], SAMPLE_SHAPE);
      expect(samples.body[0]).toMatchObject({ cpu_percent: 12.5, mem_percent: 40 });
      for (const range of ['1h', '6h', '24h', '7d']) {
        await ctx.members.as(viewer, 'get', `/api/v1/agents/sampler/resources?range=${range}`).expect(200);
      }
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/agents/sampler/resources?range=2h'), 400);
      peer.close();
    });
  });

  describe('Sessions', () => {
    it('screenshot: image/png by default, image/jpeg for format=jpeg; ui-tree { elements: [UI element] }', async () => {
      const png = await ctx.members.as(viewer, 'get', '/api/v1/sessions/fake-ios-conf-agent/screenshot').buffer(true).parse(rawBody);
      expect(png.status).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      const jpeg = await ctx.members.as(viewer, 'get', '/api/v1/sessions/fake-ios-conf-agent/screenshot?format=jpeg').buffer(true).parse(rawBody);
      expect(jpeg.headers['content-type']).toBe('image/jpeg');
      const tree = await ctx.members.as(viewer, 'get', '/api/v1/sessions/fake-ios-conf-agent/ui-tree').expect(200);
      expect(Object.keys(tree.body)).toEqual(['elements']);
      expect(tree.body.elements.length).toBeGreaterThan(0);
      for (const el of tree.body.elements) {
        expectShape(el, {
          role: 'string',
          label: 'string',
          identifier: 'string',
          enabled: 'boolean',
          frame: (frame) => {
            expectShape(frame, { x: 'number', y: 'number', width: 'number', height: 'number' });
            for (const v of Object.values(frame as object)) expect(v >= 0 && v <= 1).toBe(true);
          },
        });
      }
    });

    it('404 missing session, 409 `Device is not booted`, PAT view accepted', async () => {
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/no-such-session/screenshot'), 404);
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/no-such-session/ui-tree'), 404);
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/fake-off-conf-agent/screenshot'), 409, 'Device is not booted');
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/fake-off-conf-agent/ui-tree'), 409, 'Device is not booted');
      const pat = await ctx.members.pat(viewer, 'view');
      await ctx.members.withPat(pat, 'get', '/api/v1/sessions/fake-ios-conf-agent/ui-tree').expect(200);
    });

    it('502 `Agent offline` when the agent is gone; 504 `Screenshot timed out` when it does not answer', async () => {
      const silent = await TestPeer.agent(ctx.relay, await agentToken(ctx.members), 'silent');
      await silent.announce(ctx.relay, [{ sessionId: 'silent-1', platform: 'ios', name: 'Silent', state: 'booted' }]);
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/silent-1/screenshot'), 504, 'Screenshot timed out');
      const tree = await ctx.members.as(viewer, 'get', '/api/v1/sessions/silent-1/ui-tree');
      expectError(tree, 504);
      silent.close();
      await silent.closed;
      expectError(await ctx.members.as(viewer, 'get', '/api/v1/sessions/silent-1/screenshot'), 502, 'Agent offline');
    });
  });
});
