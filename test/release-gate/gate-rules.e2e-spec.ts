import { writeFileSync } from 'node:fs';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { agentToken } from '../agents/agent-kit';
import { simulatorBuild } from '../cli/build-fixtures';
import { RunningAppium, startAppiumAgent, startFakeAppium } from '../device-tests/hub-kit';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';
import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

const TOKEN = 'ghp_gate_rules_token';
const STATUS = 'repos/create-commit-status';
const GATE = 'svc/release-gate';
const forge = new TestForge('github', { token: TOKEN });
const sha = (digit: string) => digit.repeat(40);

/**
 * The release gate's rules over HTTP against the real app (issue 38, docs/release-gate.md), with
 * the local GitHub that checks every request against GitHub's published OpenAPI description:
 * - reviews carried by listed differences (the policy's `carryForward`), and started over otherwise;
 * - new commits on a pull request: the check follows the newest build's gate, commit by commit;
 * - the `device_tests` rule read from the WebDriver hub's sessions (`svc:status`), through a fake
 *   agent and a real Appium server with its fake driver.
 */
describe('release gate rules', () => {
  const config = forgeConfigPath();
  beforeAll(async () => {
    await forge.start();
    writeFileSync(
      config,
      JSON.stringify({
        forges: [{ type: 'github', url: forge.url, tokenEnv: 'GH_GATE_RULES_TOKEN', repositories: ['acme/app'] }],
        releaseGate: {
          default: { approvals: { QA: 1 }, excludeUploader: false, carryForward: ['build_number', 'size'] },
          // The Android fixture's app: device tests only.
          apps: { 'com.example.stringlabel': { approvals: {}, rules: [{ when: 'device_tests' }] } },
        },
      }),
    );
  });
  afterAll(() => forge.close());
  const ctx = useTestRelay({ SVC_CONFIG: config, GH_GATE_RULES_TOKEN: TOKEN, SVC_RELAY_URL: 'https://relay.example.test' });

  let admin: TestMember;
  let qa: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    qa = await ctx.members.member('QA');
  });

  const gateStatuses = (commit: string) =>
    forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${commit}`) && (r.body as { context: string }).context === GATE).map((r) => r.body as { state: string; description: string });
  const lastGate = (commit: string) => gateStatuses(commit).at(-1);
  const uploadIos = async (options: { bundleId: string; version: string; buildNumber: string }, fields: Record<string, string> = {}) => {
    const build = await simulatorBuild(options);
    const req = ctx.members.as(admin, 'post', '/api/v1/builds');
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return (await req.attach('file', build.path).expect(201)).body.id as number;
  };
  const gate = async (id: number) => (await ctx.members.as(qa, 'get', `/api/v1/builds/${id}/gate`).expect(200)).body;
  const reviews = async (id: number) =>
    (await ctx.members.as(qa, 'get', `/api/v1/builds/${id}/reviews`).expect(200)).body.reviews as { reviewer: string; carried_from_build_id: number | null; carried_reason: string | null }[];
  /** The gate once the upload's evaluation is stored (it runs after the upload's answer). */
  const decided = (id: number) => until(`build ${id}'s gate decided`, async () => ((await gate(id)).state !== 'none' ? gate(id) : null));

  it('carries reviews to a rebuild that differs only in listed ways, marked with the reason; anything else starts over', async () => {
    const app = { bundleId: 'com.example.carry', version: '3.1.0' };
    const first = await uploadIos({ ...app, buildNumber: '100' });
    await decided(first);
    await ctx.members.as(qa, 'post', `/api/v1/builds/${first}/reviews`).send({ verdict: 'approve' }).expect(201);
    expect((await gate(first)).state).toBe('passed');

    // Only the build number (and with it the file's size) differs: listed, so the approval is carried.
    const rebuild = await uploadIos({ ...app, buildNumber: '101' });
    const carried = await until('the rebuild passed on the carried approval', async () => ((await gate(rebuild)).state === 'passed' ? reviews(rebuild) : null));
    expect(carried).toEqual([expect.objectContaining({ reviewer: 'qa-1', carried_from_build_id: first, carried_reason: expect.stringMatching(new RegExp(`^differs from build #${first} only in build_number(, size)?$`)) })]);
    expect((await gate(rebuild)).checks[0].detail).toBe(`1 of 1: qa-1 (carried from build #${first})`);

    // A new version name is not listed: the reviews start over.
    const release = await uploadIos({ ...app, version: '3.2.0', buildNumber: '102' });
    expect((await decided(release)).state).toBe('failed');
    expect(await reviews(release)).toEqual([]);
    expect((await gate(release)).checks[0].detail).toBe('needs 1 more QA approval (0 of 1)');
  });

  it('new commits on the pull request move the check to the newest build\'s gate', async () => {
    const app = { bundleId: 'com.example.pr', buildNumber: '1' };
    const pr = { repository: 'acme/app', pull_request: '31' };
    const first = await uploadIos({ ...app, version: '1.0.0' }, { ...pr, commit: sha('a') });
    await until('red on the first commit', () => lastGate(sha('a'))?.state === 'failure');
    await ctx.members.as(qa, 'post', `/api/v1/builds/${first}/reviews`).send({ verdict: 'approve' }).expect(201);
    await until('green on the first commit', () => lastGate(sha('a'))?.state === 'success');

    // A new commit's build (a new version: nothing carried): the head commit gets its own, red, check.
    const sentForFirst = gateStatuses(sha('a')).length;
    const second = await uploadIos({ ...app, version: '1.1.0', buildNumber: '2' }, { ...pr, commit: sha('b') });
    await until('red on the new head', () => lastGate(sha('b'))?.state === 'failure');
    expect(lastGate(sha('b'))!.description).toBe('Release gate failed: needs 1 more QA approval (0 of 1)');
    await ctx.members.as(qa, 'post', `/api/v1/builds/${second}/reviews`).send({ verdict: 'approve' }).expect(201);
    await until('green on the new head', () => lastGate(sha('b'))?.state === 'success');

    // A third commit: its build's gate decides its check; the older commits' checks are left as they were.
    const third = await uploadIos({ ...app, version: '1.2.0', buildNumber: '3' }, { ...pr, commit: sha('c') });
    await until('red on the newest head', () => lastGate(sha('c'))?.state === 'failure');
    expect((await gate(third)).state).toBe('failed');
    expect(gateStatuses(sha('a'))).toHaveLength(sentForFirst);
    expect(lastGate(sha('a'))!.state).toBe('success');
    expect(lastGate(sha('b'))!.state).toBe('success');
    expect(forge.problems()).toEqual([]);
  });

  describe('device tests from the WebDriver hub', () => {
    let appium: RunningAppium;
    let agent: AgentDaemon;
    let devicesPat: string;
    beforeAll(async () => {
      appium = await startFakeAppium();
      agent = await startAppiumAgent(ctx.relay, await agentToken(ctx.members, admin), 'gate-lab', appium);
      devicesPat = await ctx.members.pat(qa, 'devices');
    }, 120_000);
    afterAll(async () => {
      await agent?.stop();
      await appium?.close();
    });

    const webDriver = (method: 'post' | 'delete', path: string, body?: object) => {
      const req = ctx.relay.http()[method](`/wd/hub${path}`).set('Authorization', `Bearer ${devicesPat}`);
      return body ? req.send(body) : req;
    };
    /** One session on the build, marked by the client's `svc:status` and ended. */
    const session = async (buildId: number, status: 'passed' | 'failed', whileRunning: () => Promise<void>) => {
      const created = await webDriver('post', '/session', { capabilities: { alwaysMatch: { 'svc:build': buildId }, firstMatch: [{}] } });
      expect([created.status, created.body.value?.error]).toEqual([200, undefined]);
      const id = created.body.value.sessionId as string;
      await whileRunning();
      await webDriver('post', `/session/${id}/execute/sync`, { script: 'svc:status', args: [{ status, reason: `suite ${status}` }] }).expect(200);
      await webDriver('delete', `/session/${id}`).expect(200);
    };
    const deviceCheck = async (id: number) => (await gate(id)).checks.find((c: { key: string }) => c.key.endsWith('device_tests'));

    it('waits while the tests run, passes on a passed session, and fails on a failed one', async () => {
      const commit = sha('d');
      const res = await attachBuild(ctx.members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk', { repository: 'acme/app', commit }).expect(201);
      const id = res.body.id as number;
      await until('pending: no results yet', () => lastGate(commit)?.state === 'pending');
      expect(await deviceCheck(id)).toMatchObject({ outcome: 'waiting', detail: 'no device test results yet' });

      await session(id, 'passed', async () => {
        await until('running', async () => ((await deviceCheck(id))?.detail === 'device tests running' ? true : null));
        expect((await gate(id)).state).toBe('pending');
      });
      await until('green once the session passed', () => lastGate(commit)?.state === 'success');
      expect(await deviceCheck(id)).toMatchObject({ outcome: 'met', detail: 'device tests passed' });

      await session(id, 'failed', async () => undefined);
      await until('red once a session failed', () => lastGate(commit)?.state === 'failure');
      expect(await deviceCheck(id)).toMatchObject({ outcome: 'unmet', detail: 'device tests failed' });
      expect((await gate(id)).state).toBe('failed');
      expect(forge.problems()).toEqual([]);
    }, 120_000);
  });
});
