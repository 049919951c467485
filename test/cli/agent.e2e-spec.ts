import request from 'supertest';
import { fakePng } from '../../src/agent-daemon/backends/fake-backend';
import { agentToken } from '../agents/agent-kit';
import { MemberFactory } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { runCli, RunningCli, spawnCli, CLI_TEST_TIMEOUT_MS } from './cli-process';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

/** Issue 6 "done when": `svc agent --fake` serves screenshots to a view PAT, and revoking its token drops it at once. */
describe('svc agent', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let agent: RunningCli | null = null;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
  });
  afterEach(async () => {
    agent?.child.kill('SIGKILL');
    agent = null;
  });
  afterAll(() => relay.close());

  it('--help explains the command with examples', async () => {
    const help = await runCli(['agent', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--relay <url>');
    expect(help.stdout).toContain('SVC_AGENT_TOKEN');
    expect(help.stdout).toContain('Examples:');
  });

  it('--fake-devices takes 1 to 64, with --fake only (usage errors, exit 2)', async () => {
    const zero = await runCli(['agent', '--relay', relay.url, '--token', 'x', '--fake', '--fake-devices', '0']);
    expect([zero.code, zero.stderr]).toEqual([2, expect.stringContaining('a whole number from 1 to 64')]);
    const real = await runCli(['agent', '--relay', relay.url, '--token', 'x', '--fake-devices', '4']);
    expect([real.code, real.stderr]).toEqual([2, expect.stringContaining('--fake-devices needs --fake')]);
  });

  it('without a token is a usage error (exit 2)', async () => {
    const res = await runCli(['agent', '--relay', relay.url, '--fake']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('a token is required');
  });

  it('connects with an Admin agent token, serves screenshots, and exits 1 the moment its token is revoked', async () => {
    const admin = await members.admin();
    const token = await agentToken(members);
    const view = await members.pat(await members.member('Viewer'), 'view');
    agent = new RunningCli(spawnCli(['agent', '--relay', relay.url, '--name', 'cli-agent', '--fake', '--fake-devices', '3'], { env: { SVC_AGENT_TOKEN: token } }));

    const screenshot = () =>
      request(relay.url)
        .get('/api/v1/sessions/fake-ios-cli-agent/screenshot')
        .set('Authorization', `Bearer ${view}`)
        .buffer(true)
        .parse(rawBody);
    let shot: request.Response | null = null;
    const deadline = Date.now() + 20_000;
    while (!shot) {
      const res = await screenshot().catch(() => null);
      if (res?.status === 200) shot = res;
      else if (Date.now() > deadline) throw new Error(`the agent never served a screenshot; its stderr:\n${agent.stderr}`);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(shot!.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(shot!.body, fakePng('fake-ios-cli-agent'))).toBe(0);
    // --fake-devices 3: three booted Android devices (parallel hub sessions), beside the usual iOS ones.
    const devices = await request(relay.url).get('/api/v1/devices').set('Authorization', `Bearer ${view}`).expect(200);
    expect(devices.body.items.filter((d: { platform: string; state: string }) => d.platform === 'android' && d.state === 'booted').map((d: { session_id: string }) => d.session_id).sort()).toEqual([
      'fake-android-cli-agent',
      'fake-android-cli-agent-2',
      'fake-android-cli-agent-3',
    ]);

    const tokens = await members.as(admin, 'get', '/api/v1/tokens').expect(200);
    const agentTokenId = tokens.body.find((t: { scope: string }) => t.scope.includes('agent')).id;
    await members.as(admin, 'delete', `/api/v1/tokens/${agentTokenId}`).expect(204);
    expect(await agent.exited).toBe(1);
    expect((await screenshot()).status).toBe(502);
  });
});
