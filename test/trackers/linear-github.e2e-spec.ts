/**
 * "Report issue" to Linear and GitHub Issues end to end (issue 39 items 3 and 4, docs/integrations.md
 * "Issue trackers"), against fakes on loopback: GitHub's requests validated by GitHub's published
 * OpenAPI description (@octokit/openapi, as the forge tests do: test/forges/support/forge-server.ts),
 * Linear's held to its documented operations (support/fake-linear.ts says why not its schema). Each
 * issue goes through the one outbox (destination `tracker:<name>`), and each tracker's signed
 * webhook brings its status back onto the build; an address the SSRF rule refuses is never called.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import request from 'supertest';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';
import { FakeLinear } from './support/fake-linear';
import { ffmpegMissing, makeVideo } from './support/recording-video';

const LINEAR_KEY = 'lin_api_test_key_0123456789';
const LINEAR_SECRET = 'linear-webhook-secret';
const GH_TOKEN = 'ghp_issues_token_0123456789abcdef';
const GH_SECRET = 'github-webhook-secret';
const linear = new FakeLinear(LINEAR_KEY);
const github = new TestForge('github', { token: GH_TOKEN });

interface Issue {
  id: number;
  tracker: string;
  delivery: string;
  key: string | null;
  url: string | null;
  status: string | null;
  closed: boolean;
  closedWhileRejected: boolean;
  lastError: string | null;
}

describeUnless(ffmpegMissing, 'Report issue to Linear and GitHub Issues', () => {
  const config = forgeConfigPath();
  beforeAll(async () => {
    await linear.start();
    await github.start();
    writeFileSync(
      config,
      JSON.stringify({
        trackers: [
          { name: 'linear', type: 'linear', url: linear.endpoint, tokenEnv: 'LINEAR_KEY', webhookSecretEnv: 'LINEAR_HOOK', projects: { '*': 'team-1' } },
          { name: 'github', type: 'github', url: github.url, tokenEnv: 'GH_ISSUES', webhookSecretEnv: 'GH_HOOK', projects: { '*': 'Acme/App' } },
          // The cloud metadata address: never an allowed destination, whoever configured it.
          { name: 'metadata', type: 'github', url: 'http://169.254.169.254', tokenEnv: 'GH_ISSUES', projects: { '*': 'acme/app' } },
        ],
      }),
    );
  });
  afterAll(async () => {
    await linear.close();
    await github.close();
  });
  const ctx = useTestRelay({ SVC_CONFIG: config, LINEAR_KEY, LINEAR_HOOK: LINEAR_SECRET, GH_ISSUES: GH_TOKEN, GH_HOOK: GH_SECRET });

  let qa: TestMember;
  let admin: TestMember;
  let buildId: number;
  let recordingId: number;
  beforeAll(async () => {
    qa = await ctx.members.member('QA');
    admin = await ctx.members.admin();
    const { body } = await attachBuild(ctx.members.as(await ctx.members.member('Developer'), 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
    buildId = body.id;
    await ctx.members.as(qa, 'post', `/api/v1/recordings/upload?buildId=${buildId}&sessionId=fake-android-2`).attach('file', makeVideo(), 'screen.mp4').expect(200);
    recordingId = (await ctx.members.as(qa, 'get', `/api/v1/recordings?buildId=${buildId}`).expect(200)).body[0].id;
  });

  const issues = async (): Promise<Issue[]> => (await ctx.members.as(qa, 'get', `/api/v1/builds/${buildId}/issues`).expect(200)).body.items;
  const issue = (id: number, check: (i: Issue) => boolean = () => true) => until(`issue #${id}`, async () => (await issues()).find((i) => i.id === id && check(i)), 60_000);
  const kick = () => ctx.relay.app.get(OutboxWorker, { strict: false }).kick();
  const report = async (tracker: string, extra: Record<string, unknown> = {}) =>
    (await ctx.members.as(qa, 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker, title: 'Crash on the second tap', description: 'Tap twice.', ...extra }).expect(201)).body as Issue;
  const destination = async (name: string) =>
    ((await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body as { destination: string; queued: number; delivered: number; failed: number; last_error: string | null }[]).find(
      (d) => d.destination === name,
    );
  // The issue's step is committed before the outbox records the message's end: its counts are waited for.
  const settled = (name: string) => until(`${name} recorded`, async () => {
    const found = await destination(name);
    return found && found.queued === 0 && found.delivered + found.failed > 0 ? found : null;
  });

  it('files a Linear issue, uploads the clip and screenshot to the signed URLs and attaches them', async () => {
    const reported = await report('linear', { recordingId });
    await kick();
    const filed = await issue(reported.id, (i) => i.delivery === 'filed');
    expect(linear.problems()).toEqual([]);
    expect(filed.status).toBe('Todo');
    expect(filed.url).toMatch(/^https:\/\/linear\.app\/acme\/issue\/ENG-\d+$/);
    const [created] = linear.of('IssueCreate');
    const input = (created.variables as { input: { teamId: string; title: string; description: string } }).input;
    expect(input).toMatchObject({ teamId: 'team-1', title: 'Crash on the second tap' });
    expect(input.description).toContain(`recording #${recordingId}, the last 30 seconds`);
    expect(linear.of('FileUpload').map((r) => r.variables.filename)).toEqual([`build-${buildId}-issue-${reported.id}-clip.mp4`, `build-${buildId}-issue-${reported.id}-screenshot.png`]);
    expect(linear.of('upload')).toHaveLength(2);
    expect(linear.of('upload')[1].bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(linear.of('AttachmentCreate').map((r) => (r.variables.input as { issueId: string }).issueId)).toEqual([filed.key, filed.key]);
    expect(await settled('tracker:linear')).toMatchObject({ queued: 0, delivered: 1, failed: 0, last_error: null });
  });

  it("takes Linear's signed webhook back onto the build: completed while Rejected is shown as such", async () => {
    const filed = (await issues()).find((i) => i.tracker === 'linear' && i.delivery === 'filed')!;
    const hook = (state: { name: string; type: string }, secret = LINEAR_SECRET) => {
      const raw = JSON.stringify({ type: 'Issue', action: 'update', webhookTimestamp: ctx.relay.clock.nowMs(), data: { id: filed.key, state } });
      const signature = createHmac('sha256', secret).update(raw).digest('hex');
      return request(ctx.relay.url).post('/api/v1/integrations/trackers/linear/webhook').set('content-type', 'application/json').set('linear-signature', signature).send(raw);
    };
    await hook({ name: 'Done', type: 'completed' }, 'not-the-secret').expect(401);
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${buildId}`).send({ status_label: 'Rejected' }).expect(200);
    expect((await hook({ name: 'Done', type: 'completed' }).expect(200)).body).toEqual({ applied: 1 });
    const closed = await issue(filed.id, (i) => i.closed);
    expect(closed).toMatchObject({ status: 'Done', closedWhileRejected: true });
    await ctx.members.as(qa, 'patch', `/api/v1/builds/${buildId}`).send({ status_label: null }).expect(200);
  });

  it('files a GitHub issue (validated by GitHub\'s OpenAPI description) and lists the evidence in a comment', async () => {
    const reported = await report('github', { recordingId });
    await kick();
    const filed = await issue(reported.id, (i) => i.delivery === 'filed');
    expect(github.problems()).toEqual([]);
    const [created] = github.of('issues/create');
    expect(created.path).toBe('/repos/Acme/App/issues');
    expect(created.body).toMatchObject({ title: 'Crash on the second tap' });
    expect((created.body as { body: string }).body).toContain(`Build page: `);
    const number = filed.key!.split('#')[1];
    expect(filed.key).toBe(`acme/app#${number}`);
    const [comment] = github.of('issues/create-comment');
    expect(comment.path).toBe(`/repos/acme/app/issues/${number}/comments`);
    expect((comment.body as { body: string }).body).toContain(`build-${buildId}-issue-${reported.id}-clip.mp4 (video/mp4`);

    const raw = JSON.stringify({ action: 'closed', issue: { number: Number(number), state: 'closed', state_reason: 'completed' }, repository: { full_name: 'Acme/App' } });
    const signature = createHmac('sha256', GH_SECRET).update(raw).digest('hex');
    await request(ctx.relay.url)
      .post('/api/v1/integrations/trackers/github/webhook')
      .set('content-type', 'application/json')
      .set('x-github-event', 'issues')
      .set('x-hub-signature-256', `sha256=${signature}`)
      .send(raw)
      .expect(200);
    const closed = await issue(reported.id, (i) => i.closed);
    expect(closed).toMatchObject({ status: 'closed (completed)', closedWhileRejected: false });
  });

  it('refuses a tracker at the cloud metadata address: no request, the issue failed, the destination shows why', async () => {
    const reported = await report('metadata');
    await kick();
    const failed = await issue(reported.id, (i) => i.delivery === 'failed');
    expect(failed.lastError).toMatch(/^destination refused: /);
    expect(await settled('tracker:metadata')).toMatchObject({ queued: 0, failed: 1, last_error: failed.lastError });
  });

  it('refuses a signed upload URL that points at a refused address: the issue is created, then failed', async () => {
    linear.script('FileUpload', { data: { fileUpload: { success: true, uploadFile: { uploadUrl: 'http://169.254.169.254/upload', assetUrl: 'https://uploads.linear.app/x', headers: [] } } } });
    const reported = await report('linear', { recordingId });
    await kick();
    const failed = await issue(reported.id, (i) => i.delivery === 'failed');
    expect(failed.key).not.toBeNull();
    expect(failed.lastError).toMatch(/^destination refused: /);
  });

  it('keeps a GraphQL refusal as final, with its message and without the key', async () => {
    linear.script('IssueCreate', { errors: [{ message: `Entity not found: Team (key ${LINEAR_KEY})` }] });
    const reported = await report('linear');
    await kick();
    const failed = await issue(reported.id, (i) => i.delivery === 'failed');
    expect(failed.lastError).toContain('Linear refused: Entity not found: Team');
    expect(failed.lastError).not.toContain(LINEAR_KEY);
    const shown = await destination('tracker:linear');
    expect(shown?.last_error).not.toContain(LINEAR_KEY);
  });

  // Last: it moves the relay's clock past the recordings' 72 hours.
  it('retries a 503 with backoff and gives the issue up after 3 days of failures', async () => {
    github.script('issues/create', { status: 503, body: { message: `down (${GH_TOKEN})` } }, { status: 503, body: { message: 'still down' } });
    const reported = await report('github');
    await kick();
    const retried = await issue(reported.id, (i) => i.lastError !== null);
    expect(retried).toMatchObject({ delivery: 'queued', key: null });
    expect(retried.lastError).toContain('HTTP 503');
    expect(retried.lastError).not.toContain(GH_TOKEN);
    ctx.relay.clock.advance(3 * 24 * 3_600_000);
    await kick();
    const failed = await issue(reported.id, (i) => i.delivery === 'failed');
    expect(failed.lastError).toContain('still down');
    expect(github.of('issues/create').filter((r) => (r.body as { title: string }).title === 'Crash on the second tap').length).toBeGreaterThanOrEqual(3);
  });
});
