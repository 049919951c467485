import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { HubSessionEvidence } from '../../src/device-tests/evidence/hub-session-evidence.service';
import { agentToken } from '../agents/agent-kit';
import { runCli, emptyDir, CLI_TEST_TIMEOUT_MS } from '../cli/cli-process';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';
import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { LoopbackListener } from '../webhooks/support/loopback-listener';
import { signatureVerifies } from '../webhooks/support/webhook-helpers';
import { RunningAppium, runWdio, startAppiumAgent, startFakeAppium } from './hub-kit';

const TOKEN = 'ghp_runs_token';
const STATUS = 'repos/create-commit-status';
const CONTEXT = 'svc/device-tests';
const SHA = '7'.repeat(40);
const forge = new TestForge('github', { token: TOKEN });

const report = (cases: string, name = 'ci / smoke') => `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${name}">
  <testsuite name="login" tests="2">
${cases}
  </testsuite>
</testsuites>`;
const PASSING = '<testcase name="shows the inbox" classname="login.spec" time="1.25"/>';
const FAILING = '<testcase name="rejects a wrong password" classname="login.spec" time="0.5"><failure message="expected the error banner">AssertionError…</failure></testcase>';

/**
 * Test runs of builds (issue 37 item 5, docs/device-tests.md "Results"): JUnit reports from CI (as
 * the body or multipart, and through `svc results upload`), hub sessions grouped by svc:name, the
 * listing, `svc/device-tests` to a local GitHub checked against GitHub's OpenAPI description, and
 * the signed `build.test_run_completed` webhook.
 */
describe('test runs', () => {
  const config = forgeConfigPath();
  let hooks: LoopbackListener;
  beforeAll(async () => {
    await forge.start();
    hooks = await LoopbackListener.start();
    writeFileSync(
      config,
      JSON.stringify({
        forges: [{ type: 'github', url: forge.url, tokenEnv: 'GH_RUNS_TOKEN', repositories: ['acme/app'] }],
        webhooks: [{ url: `http://127.0.0.1:${hooks.port}/runs`, secretEnv: 'RUNS_HOOK_SECRET' }],
        releaseGate: { default: { rules: [{ when: 'device_tests' }] } },
      }),
    );
  });
  afterAll(async () => {
    await forge.close();
    await hooks.close();
  });
  const ctx = useTestRelay({ SVC_CONFIG: config, GH_RUNS_TOKEN: TOKEN, RUNS_HOOK_SECRET: 'runs-hook-secret', SVC_RELAY_URL: 'https://relay.example.test' });

  let developer: TestMember;
  let viewer: TestMember;
  let ciPat: string;
  let buildId: number;
  beforeAll(async () => {
    developer = await ctx.members.member('Developer');
    viewer = await ctx.members.member('Viewer');
    ciPat = await ctx.members.pat(developer, 'builds:write');
    const res = await attachBuild(ctx.members.withPat(ciPat, 'post', '/api/v1/builds'), 'string-label.apk', { commit: SHA, repository: 'acme/app', pull_request: '9' }).expect(201);
    buildId = res.body.id;
  });

  const postXml = (xml: string | Buffer, path = `/api/v1/builds/${buildId}/test-runs`, token = ciPat) =>
    ctx.members.withPat(token, 'post', path).set('Content-Type', 'application/xml').send(Buffer.isBuffer(xml) ? xml : Buffer.from(xml));
  const list = async () => (await ctx.members.as(viewer, 'get', `/api/v1/builds/${buildId}/test-runs`).expect(200)).body.runs;
  const deviceTestsRule = async () =>
    (await ctx.members.as(viewer, 'get', `/api/v1/builds/${buildId}/gate`).expect(200)).body.checks.find((c: { key: string }) => c.key === 'rules[0].device_tests');
  const lastStatus = () =>
    forge.of(STATUS).filter((r) => r.path.endsWith(`/statuses/${SHA}`) && (r.body as { context: string }).context === CONTEXT).at(-1)?.body as
      | { state: string; description: string; target_url?: string }
      | undefined;

  it('takes a JUnit report as the body: results per test, svc/device-tests failing, and a signed build.test_run_completed', async () => {
    const res = await postXml(report(`${PASSING}\n${FAILING}`));
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    expect(res.body).toEqual({
      id: expect.any(Number),
      build_id: buildId,
      name: 'ci / smoke',
      state: 'failed',
      created_at: expect.stringMatching(/Z$/),
      reported_at: expect.stringMatching(/Z$/),
      counts: { tests: 2, passed: 1, failed: 1, skipped: 0 },
      sessions: [],
      results: [
        { name: 'shows the inbox', class_name: 'login.spec', status: 'passed', duration_ms: 1250, message: null, session_id: null, recording_url: null, screenshot_url: null, failed_at_ms: null },
        { name: 'rejects a wrong password', class_name: 'login.spec', status: 'failed', duration_ms: 500, message: 'expected the error banner', session_id: null, recording_url: null, screenshot_url: null, failed_at_ms: null },
      ],
    });
    expect(await list()).toEqual([res.body]);
    // The release gate's device_tests rule counts the report's results.
    expect(await deviceTestsRule()).toMatchObject({ outcome: 'unmet', detail: 'device tests failed' });

    await until('svc/device-tests failing', () => lastStatus()?.state === 'failure');
    expect(lastStatus()).toEqual({ state: 'failure', context: CONTEXT, description: 'Device tests failed: 1 failed, 1 passed', target_url: `https://relay.example.test/builds/${buildId}#device-tests` });
    expect(forge.problems()).toEqual([]);

    const hit = await until('build.test_run_completed delivered', () => hooks.hits.find((h) => h.headers['x-svc-event'] === 'build.test_run_completed'));
    expect(signatureVerifies('runs-hook-secret', hit.body, hit.headers['x-svc-signature'] as string)).toBe(true);
    expect(JSON.parse(hit.body.toString())).toEqual({
      event: 'build.test_run_completed',
      build: { id: String(buildId) },
      run: { id: res.body.id, name: 'ci / smoke', state: 'failed', tests: 2, passed: 1, failed: 1, skipped: 0, sessions: 0 },
      completedAt: expect.stringMatching(/Z$/),
    });
  });

  it('replaces a run’s results on a second report of the same name (multipart, name in a field): svc/device-tests turns green', async () => {
    const res = await ctx.members
      .as(developer, 'post', `/api/v1/builds/${buildId}/test-runs`)
      .field('name', 'ci / smoke')
      .attach('file', Buffer.from(report(PASSING, 'ignored')), { filename: 'junit.xml', contentType: 'application/xml' });
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    expect(res.body).toMatchObject({ name: 'ci / smoke', state: 'passed', counts: { tests: 1, passed: 1, failed: 0, skipped: 0 } });
    expect((await list()).map((r: { id: number }) => r.id)).toEqual([res.body.id]);
    await until('svc/device-tests green', () => lastStatus()?.state === 'success');
    expect(lastStatus()!.description).toBe('Device tests passed: 1 passed');
    expect(await deviceTestsRule()).toMatchObject({ outcome: 'met', detail: 'device tests passed' });
    expect(forge.problems()).toEqual([]);
  });

  it('refuses malformed, oversized and non-JUnit reports with a sentence, writing nothing; an unknown build is 404', async () => {
    const before = await list();
    const malformed = await postXml('<testsuites><testsuite><testcase name="a"></testsuite>');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^The JUnit report is not well-formed XML: /);
    const html = await postXml('<html><body>502 Bad Gateway</body></html>');
    expect(html.body).toEqual({ error: "The JUnit report's root element is <html>; expected <testsuites> or <testsuite>" });
    const doctype = await postXml('<!DOCTYPE lol [<!ENTITY a "aaaaaaaa">]><testsuites>&a;</testsuites>');
    expect(doctype.body).toEqual({ error: 'The JUnit report has a DOCTYPE, which is not accepted' });
    const oversized = await postXml(Buffer.alloc(5 * 1024 * 1024 + 1, 0x20));
    expect([oversized.status, oversized.body.error]).toEqual([413, `JUnit report too large (limit ${5 * 1024 * 1024} bytes)`]);
    const json = await ctx.members.withPat(ciPat, 'post', `/api/v1/builds/${buildId}/test-runs`).send({ report: 'x' });
    expect([json.status, json.body.error]).toEqual([400, 'Send the JUnit report as the body (Content-Type: application/xml) or as multipart/form-data with the file in `file`']);
    const unknown = await postXml(report(PASSING), `/api/v1/builds/${buildId + 1000}/test-runs`);
    expect([unknown.status, unknown.body.error]).toEqual([404, 'Build not found']);
    expect(await list()).toEqual(before);
  });

  it('lets Viewers and view tokens read but not upload', async () => {
    const byCookie = await ctx.members.as(viewer, 'post', `/api/v1/builds/${buildId}/test-runs`).set('Content-Type', 'application/xml').send(report(PASSING));
    expect(byCookie.status).toBe(403);
    const viewPat = await ctx.members.pat(developer, 'view');
    expect((await postXml(report(PASSING), undefined, viewPat)).status).toBe(403);
    expect((await ctx.members.withPat(viewPat, 'get', `/api/v1/builds/${buildId}/test-runs`)).status).toBe(200);
  });

  it('uploads through `svc results upload --build N report.xml`', async () => {
    const dir = emptyDir();
    writeFileSync(join(dir, 'junit.xml'), report(FAILING, 'cli'));
    const result = await runCli(['results', 'upload', '--build', String(buildId), 'junit.xml'], { cwd: dir, env: { SVC_URL: ctx.relay.url, SVC_TOKEN: ciPat } });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toMatch(new RegExp(`^Run \\d+ "cli" of build ${buildId}: failed \\(1 test: 0 passed, 1 failed, 0 skipped\\)\\n$`));
    const missing = await runCli(['results', 'upload', '--build', String(buildId), 'nope.xml'], { cwd: dir, env: { SVC_URL: ctx.relay.url, SVC_TOKEN: ciPat } });
    expect([missing.code, missing.stderr]).toEqual([2, 'svc: nope.xml: no such file\n']);
  }, CLI_TEST_TIMEOUT_MS);

  describe('with hub sessions', () => {
    let appium: RunningAppium;
    let agent: AgentDaemon;
    let devicesPat: string;
    beforeAll(async () => {
      devicesPat = await ctx.members.pat(developer, 'devices');
      appium = await startFakeAppium();
      agent = await startAppiumAgent(ctx.relay, await agentToken(ctx.members), 'lab-runs', appium);
    }, 120_000);
    afterAll(async () => {
      await agent?.stop();
      await appium?.close();
    });

    it('groups sessions by svc:name into the run, pending while they run, and links the report’s tests to the session they name', async () => {
      const held = runWdio('hold', { url: `${ctx.relay.url}/wd/hub`, token: devicesPat, caps: { 'svc:build': buildId, 'svc:name': 'ci / e2e' } });
      const { holding } = await held.firstLine;
      await until('svc/device-tests pending', () => lastStatus()?.state === 'pending');
      expect(lastStatus()!.description).toBe('Device tests running');
      const running = (await list()).find((r: { name: string }) => r.name === 'ci / e2e');
      expect(running).toMatchObject({ state: 'running', sessions: [{ id: holding, status: 'running', ended_at: null }] });
      held.release();
      expect((await held.result).deleted).toBe(true);
      await until('the session ended in its run', async () => (await list()).find((r: { name: string }) => r.name === 'ci / e2e')?.sessions[0].ended_at);
      // Its last session ended: the run is completed (unmarked: state none).
      const completed = await until('build.test_run_completed of the hub run', () =>
        hooks.hits.map((h) => JSON.parse(h.body.toString())).find((b) => b.event === 'build.test_run_completed' && b.run.name === 'ci / e2e'),
      );
      expect(completed.run).toMatchObject({ state: 'none', tests: 0, sessions: 1 });

      const linked = `<testcase name="logs in" classname="e2e"><properties><property name="svc:session" value="${holding}"/></properties></testcase>`;
      const res = await ctx.members.withPat(ciPat, 'post', `/api/v1/builds/${buildId}/test-runs?name=ci%20%2F%20e2e`).set('Content-Type', 'text/xml').send(report(linked));
      expect([res.status, res.body.error]).toEqual([201, undefined]);
      expect(res.body).toMatchObject({
        name: 'ci / e2e',
        state: 'passed',
        sessions: [{ id: holding, status: 'ended', end_reason: 'deleted', device_session_id: expect.any(String), recording_url: null }],
        results: [{ name: 'logs in', status: 'passed', session_id: holding }],
      });
      await until('svc/device-tests settled', () => lastStatus()?.state === 'failure');
      expect(forge.problems()).toEqual([]);
    }, 60_000);

    it('keeps a session’s svc:status in its row, and a failed session’s final screenshot and failing command with its run', async () => {
      const out = await runWdio('status', { url: `${ctx.relay.url}/wd/hub`, token: devicesPat, caps: { 'svc:build': buildId, 'svc:name': 'ci / marked' } }).result;
      expect(out.deleted).toBe(true);
      await ctx.relay.app.get(HubSessionEvidence).settled();
      const session = (await ctx.members.as(viewer, 'get', `/api/v1/device-test-sessions/${out.sessionId}`).expect(200)).body;
      // The failing step: the last command that answered an error, else the last before svc:status and the end.
      const steps = session.commands.filter((c: { command: string }) => c.command !== 'deleteSession' && c.command !== 'executeScript svc:status');
      const failing = [...steps].reverse().find((c: { error: unknown }) => c.error) ?? steps.at(-1);
      expect(failing.at).toBeGreaterThan(0);
      const run = await until('the marked session ended in its run', async () =>
        (await list()).find((r: { name: string; sessions: { ended_at: string | null }[] }) => r.name === 'ci / marked' && r.sessions[0]?.ended_at),
      );
      expect(run.state).toBe('failed');
      expect(run.sessions).toEqual([
        {
          id: out.sessionId,
          device_session_id: expect.any(String),
          status: 'failed',
          verdict: 'failed',
          reason: 'login did not show the inbox',
          end_reason: 'deleted',
          started_at: expect.stringMatching(/Z$/),
          ended_at: expect.stringMatching(/Z$/),
          recording_url: null,
          screenshot_url: `/api/v1/device-test-sessions/${out.sessionId}/screenshot`,
          failed_at_ms: failing.at,
        },
      ]);
      await ctx.members.as(viewer, 'get', run.sessions[0].screenshot_url).expect(200).expect('Content-Type', 'image/png');
    }, 60_000);
  });
});
