import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { fakePng, fakeUiTree } from '../../src/agent-daemon/backends/fake-backend';
import { agentToken, startFakeAgent } from '../agents/agent-kit';
import { cliEnv, REPO_ROOT } from '../cli/cli-process';
import { compiledCliMain } from '../cli/compiled-cli';
import { attachBuild, EXPECTED, fixture } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { startTestRelay, TestRelay } from '../support/test-relay';

const TOOLS = [
  'comment_on_build',
  'compare_builds',
  'get_build',
  'get_release_gate',
  'install_build',
  'launch_app',
  'list_builds',
  'list_devices',
  'list_test_runs',
  'press_button',
  'screenshot',
  'start_recording',
  'stop_recording',
  'swipe',
  'tap',
  'type_text',
  'ui_tree',
];

type ToolResult = { isError?: boolean; content: { type: string; text?: string; data?: string; mimeType?: string }[] };

/**
 * The MCP server through the SDK's own client, over both transports (`svc mcp` on stdio, spawned
 * from the compiled CLI, and Streamable HTTP at /api/v1/mcp), against a relay with the reference
 * agent's fake backend connected.
 */
describe('MCP server', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewer: TestMember;
  let agent: AgentDaemon;
  let build: { id: number; app_id: number; bundle_id: string };
  let reviewed: { id: number };
  const android = 'fake-android-mcp-lab';
  const ios = 'fake-ios-mcp-lab';
  const off = 'fake-off-mcp-lab';

  // Compiling the CLI for the stdio transport takes seconds on a busy machine: once, up front.
  beforeAll(() => compiledCliMain(REPO_ROOT), 180_000);
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewer = await members.member('Viewer');
    agent = await startFakeAgent(relay, await agentToken(members), 'mcp-lab');
    const uploaded = await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Backlog' }).expect(201);
    build = uploaded.body;
    // another build, already reviewed, that a Backlog filter must leave out
    reviewed = (await attachBuild(members.as(qa, 'post', '/api/v1/builds'), 'string-label.apk', { status: 'Done' }).expect(201)).body;
  });
  afterAll(async () => {
    await agent.stop();
    await relay.close();
  });

  const transports: [string, (token: string) => Transport][] = [
    [
      'Streamable HTTP at /api/v1/mcp',
      (token) =>
        new StreamableHTTPClientTransport(new URL(`${relay.url}/api/v1/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
    ],
    [
      'stdio (svc mcp)',
      (token) =>
        new StdioClientTransport({
          command: process.execPath,
          args: [compiledCliMain(REPO_ROOT), 'mcp'],
          env: cliEnv({ SVC_URL: relay.url, SVC_TOKEN: token }) as Record<string, string>,
          stderr: 'ignore',
        }),
    ],
  ];

  describe.each(transports)('over %s', (_name, transportFor) => {
    const clients: Client[] = [];
    const connect = async (token: string) => {
      const client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(transportFor(token));
      clients.push(client);
      return client;
    };
    const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
    const jsonOf = (result: ToolResult) => {
      expect(result.isError).toBeFalsy();
      return JSON.parse(result.content[0].text!);
    };
    const errorOf = (result: ToolResult) => {
      expect(result.isError).toBe(true);
      return result.content[0].text;
    };
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
    });

    it('lists the sixteen tools with descriptions and JSON schemas, and none that sets a verdict', async () => {
      const client = await connect(await members.pat(qa));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe('object');
      }
      const tap = tools.find((t) => t.name === 'tap')!;
      expect(tap.inputSchema.required).toEqual(['session_id', 'x', 'y']);
      expect(tap.inputSchema.properties!.x).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
      const comment = tools.find((t) => t.name === 'comment_on_build')!;
      expect(Object.keys(comment.inputSchema.properties!).sort()).toEqual(['attach_screenshot_of', 'body', 'build_id']);
      expect(client.getInstructions()).toContain('never through these tools');
    });

    it('compares a build with the previous one of its app, and says when there is none', async () => {
      const client = await connect(await members.pat(qa));
      const comparison = jsonOf(await call(client, 'compare_builds', { build_id: reviewed.id }));
      expect(comparison.build.id).toBe(reviewed.id);
      expect(comparison.compared_with.id).toBe(build.id);
      expect(comparison.size.file).toMatchObject({ delta: 0, percent: 0 });
      expect(comparison.flags).toEqual([]);
      expect(jsonOf(await call(client, 'compare_builds', { build_id: build.id, to: reviewed.id })).compared_with.id).toBe(reviewed.id);
      expect(errorOf(await call(client, 'compare_builds', { build_id: build.id }))).toBe(
        `Build ${build.id} is the first build of its app on its platform: there is no previous build to compare with (HTTP 404)`,
      );
    });

    it('reads a build\'s release gate with its reviews (no policy: none)', async () => {
      const client = await connect(await members.pat(qa));
      const gate = jsonOf(await call(client, 'get_release_gate', { build_id: build.id }));
      expect(gate).toEqual({ build_id: build.id, state: 'none', policy: null, compared_with: null, checks: [], description: 'No release gate policy applies to this build', reviews: [] });
    });

    it("lists a build's test runs with their results", async () => {
      const client = await connect(await members.pat(qa));
      const junit = '<testsuites name="ci"><testsuite><testcase name="opens" classname="smoke" time="0.5"/></testsuite></testsuites>';
      await members.as(qa, 'post', `/api/v1/builds/${build.id}/test-runs`).set('Content-Type', 'application/xml').send(junit).expect(201);
      const { runs } = jsonOf(await call(client, 'list_test_runs', { build_id: build.id }));
      expect(runs).toEqual([expect.objectContaining({ name: 'ci', state: 'passed', results: [expect.objectContaining({ name: 'opens', status: 'passed', duration_ms: 500 })] })]);
    });

    it('lists the builds waiting for review, installs one on a device, takes a screenshot and comments with it', async () => {
      const client = await connect(await members.pat(qa));

      const waiting = jsonOf(await call(client, 'list_builds', { status: 'Backlog' }));
      expect(waiting.items.map((b: { id: number }) => b.id)).toContain(build.id);
      expect(waiting.items.every((b: { status_label: string }) => b.status_label === 'Backlog')).toBe(true);
      expect(jsonOf(await call(client, 'get_build', { build_id: build.id }))).toMatchObject({
        id: build.id,
        bundle_id: EXPECTED['string-label.apk'].bundle_id,
        status_label: 'Backlog',
      });

      const devices = jsonOf(await call(client, 'list_devices')).items;
      expect(devices).toContainEqual(
        expect.objectContaining({ session_id: android, platform: 'android', state: 'booted', agent: 'mcp-lab', agent_online: true }),
      );

      const bytes = readFileSync(fixture('string-label.apk'));
      expect(jsonOf(await call(client, 'install_build', { session_id: android, build_id: build.id }))).toEqual({
        installed: true,
        fileName: expect.stringMatching(/\.apk$/),
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      expect(jsonOf(await call(client, 'launch_app', { session_id: android, bundle_id: build.bundle_id }))).toEqual({});

      const shot = await call(client, 'screenshot', { session_id: android });
      expect(shot.isError).toBeFalsy();
      expect(shot.content).toEqual([{ type: 'image', mimeType: 'image/png', data: fakePng(android).toString('base64') }]);

      const created = jsonOf(
        await call(client, 'comment_on_build', { build_id: build.id, body: 'Login screen after install', attach_screenshot_of: android }),
      );
      expect(created).toMatchObject({ id: expect.any(Number), body: 'Login screen after install', author: null });
      const comments = (await members.as(qa, 'get', `/api/v1/comments?build_id=${build.id}`).expect(200)).body;
      const posted = comments.find((c: { id: number }) => c.id === created.id);
      expect(posted.attachments).toHaveLength(1);
      const file = await request(relay.url).get(posted.attachments[0].file_path).set('Cookie', qa.cookie).buffer(true).parse(rawBody).expect(200);
      expect(Buffer.compare(file.body, fakePng(android))).toBe(0);

      const plain = jsonOf(await call(client, 'comment_on_build', { build_id: build.id, body: 'No picture this time' }));
      expect(plain.body).toBe('No picture this time');
      // a comment is never a verdict
      expect((await members.as(qa, 'get', `/api/v1/builds/${build.id}`).expect(200)).body.status_label).toBe('Backlog');
    });

    it('drives the device: UI tree, tap, swipe, type_text, press_button, jpeg screenshot', async () => {
      const client = await connect(await members.pat(qa));
      expect(jsonOf(await call(client, 'ui_tree', { session_id: ios }))).toEqual({ elements: fakeUiTree() });
      expect(jsonOf(await call(client, 'tap', { session_id: ios, x: 0.5, y: 0.84 }))).toEqual({});
      expect(jsonOf(await call(client, 'swipe', { session_id: ios, from_x: 0.5, from_y: 0.8, to_x: 0.5, to_y: 0.2 }))).toEqual({});
      expect(jsonOf(await call(client, 'type_text', { session_id: ios, text: 'reviewer@example.com' }))).toEqual({});
      expect(jsonOf(await call(client, 'press_button', { session_id: ios, button: 'home' }))).toEqual({});
      const jpeg = await call(client, 'screenshot', { session_id: ios, format: 'jpeg' });
      expect(jpeg.content[0]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    });

    it('answers refusals as tool errors carrying the relay’s message', async () => {
      const client = await connect(await members.pat(qa));
      expect(errorOf(await call(client, 'get_build', { build_id: 999999 }))).toBe('Build not found (HTTP 404)');
      expect(errorOf(await call(client, 'screenshot', { session_id: off }))).toBe('Device is not booted (HTTP 409)');
      expect(errorOf(await call(client, 'ui_tree', { session_id: 'no-such-device' }))).toBe('Session not found (HTTP 404)');
      expect(errorOf(await call(client, 'tap', { session_id: 'no-such-device', x: 0.1, y: 0.1 }))).toBe('Session not found (HTTP 404)');
      expect(errorOf(await call(client, 'tap', { session_id: off, x: 0.1, y: 0.1 }))).toBe('Device is not booted (not_booted)');
      expect(errorOf(await call(client, 'comment_on_build', { build_id: 999999, body: 'x' }))).toBe('Build not found (HTTP 404)');
      expect(errorOf(await call(client, 'install_build', { session_id: android, build_id: 999999 }))).toContain('Build not found');
      // schema violations never reach the relay: the SDK refuses them
      const outOfRange = await call(client, 'tap', { session_id: ios, x: 3, y: 0.1 });
      expect(outOfRange.isError).toBe(true);
    });

    it('holds each tool to the token’s scopes and the member’s role, like the REST route it mirrors', async () => {
      const viewOnly = await connect(await members.pat(qa, 'view'));
      expect(jsonOf(await call(viewOnly, 'list_devices')).items.length).toBeGreaterThan(0);
      expect((await call(viewOnly, 'screenshot', { session_id: ios })).isError).toBeFalsy();
      expect(jsonOf(await call(viewOnly, 'tap', { session_id: ios, x: 0.5, y: 0.5 }))).toEqual({});
      expect(errorOf(await call(viewOnly, 'list_builds'))).toBe('Insufficient scope (HTTP 403)');
      expect(errorOf(await call(viewOnly, 'get_build', { build_id: build.id }))).toBe('Insufficient scope (HTTP 403)');
      expect(errorOf(await call(viewOnly, 'comment_on_build', { build_id: build.id, body: 'looks fine' }))).toBe(
        'Insufficient scope (HTTP 403)',
      );

      const writeOnly = await connect(await members.pat(qa, 'builds:write'));
      expect(jsonOf(await call(writeOnly, 'list_builds')).total).toBeGreaterThan(0);
      expect(errorOf(await call(writeOnly, 'list_devices'))).toBe('Insufficient scope (HTTP 403)');
      expect(errorOf(await call(writeOnly, 'screenshot', { session_id: ios }))).toBe('Insufficient scope (HTTP 403)');
      expect(errorOf(await call(writeOnly, 'tap', { session_id: ios, x: 0.5, y: 0.5 }))).toBe('Insufficient scope (HTTP 403)');
      // attaching a screenshot needs the view scope as well
      expect(
        errorOf(await call(writeOnly, 'comment_on_build', { build_id: build.id, body: 'with picture', attach_screenshot_of: ios })),
      ).toBe('Insufficient scope (HTTP 403)');

      // spec §5.5: a Viewer reads builds and posts comments
      const asViewer = await connect(await members.pat(viewer));
      expect(jsonOf(await call(asViewer, 'list_builds')).total).toBeGreaterThan(0);
      expect(jsonOf(await call(asViewer, 'comment_on_build', { build_id: build.id, body: 'Viewer note' })).body).toBe('Viewer note');
    });

    it('applies a revoked token at once, on the next call', async () => {
      const token = await members.pat(qa);
      const client = await connect(token);
      expect((await call(client, 'list_devices')).isError).toBeFalsy();
      const tokens: { id: number }[] = (await members.as(qa, 'get', '/api/v1/tokens').expect(200)).body;
      const newest = Math.max(...tokens.map((t) => t.id)); // the one just issued
      await members.as(qa, 'delete', `/api/v1/tokens/${newest}`).expect(204);
      // over HTTP the endpoint itself refuses the token (a transport error); over stdio the relay does (a tool error)
      const after = await call(client, 'list_devices').catch((err: Error) => err);
      if (after instanceof Error) expect(after.message).toMatch(/401|Unauthorized/);
      else expect(errorOf(after)).toBe('Unauthorized (HTTP 401)');
    });
  });

  describe('the HTTP endpoint itself', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    };
    const post = () => relay.http().post('/api/v1/mcp').set('Accept', 'application/json, text/event-stream');

    it('takes a PAT with the view or builds:write scope, and nothing else', async () => {
      await post().send(initialize).expect(401, { error: 'Unauthorized' });
      await post().set('Cookie', qa.cookie).send(initialize).expect(401, { error: 'Unauthorized' });
      await post().set('Authorization', 'Bearer svc_pat_nonsense').send(initialize).expect(401, { error: 'Unauthorized' });
      const agentOnly = await agentToken(members);
      await post().set('Authorization', `Bearer ${agentOnly}`).send(initialize).expect(403, { error: 'Insufficient scope' });
      const ok = await post().set('Authorization', `Bearer ${await members.pat(viewer, 'view')}`).send(initialize).expect(200);
      expect(ok.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'svc-relay' } } });
      expect(ok.headers['mcp-session-id']).toBeUndefined();
    });

    it('has no event stream and no sessions: GET and DELETE answer 405 with Allow: POST', async () => {
      const token = await members.pat(qa);
      const get = await relay.http().get('/api/v1/mcp').set('Authorization', `Bearer ${token}`).expect(405);
      expect(get.body.error).toMatch(/stateless/);
      expect(get.headers.allow).toBe('POST');
      await relay.http().delete('/api/v1/mcp').set('Authorization', `Bearer ${token}`).expect(405);
    });

    it('is in the OpenAPI document', async () => {
      const doc = (await relay.http().get('/api/v1/openapi.json').expect(200)).body;
      expect(Object.keys(doc.paths['/api/v1/mcp'])).toEqual(expect.arrayContaining(['post', 'get', 'delete']));
      expect(doc.paths['/api/v1/devices'].get).toBeDefined();
    });
  });
});
