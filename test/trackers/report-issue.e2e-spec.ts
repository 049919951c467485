/**
 * "Report issue" (issue 39 item 3, docs/integrations.md "Issue trackers") against a fake Jira Cloud
 * (REST v3) and a fake Jira Data Center (REST v2) on loopback, each request held to the schemas
 * Atlassian documents (support/fake-jira.ts says why not its OpenAPI document): the issue is created
 * with the build's facts, the clip of the recording's last 30 seconds and a screenshot are attached,
 * a 503 is retried with backoff, and Jira's signed webhook brings the status back onto the build.
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
import { FakeJira } from './support/fake-jira';
import { durationOf, ffmpegMissing, makeVideo } from './support/recording-video';

const EMAIL = 'bot@acme.test';
const TOKEN = 'jira_api_token_123';
const DC_TOKEN = 'jira_dc_pat_456';
const SECRET = 'jira-webhook-secret';
const cloud = new FakeJira(3, `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`);
const dataCenter = new FakeJira(2, `Bearer ${DC_TOKEN}`);

describeUnless(ffmpegMissing, 'Report issue to Jira', () => {
  const config = forgeConfigPath();
  beforeAll(async () => {
    await cloud.start();
    await dataCenter.start();
    writeFileSync(
      config,
      JSON.stringify({
        trackers: [
          { name: 'jira', type: 'jira', url: cloud.url, emailEnv: 'JIRA_EMAIL', tokenEnv: 'JIRA_TOKEN', webhookSecretEnv: 'JIRA_HOOK', projects: { '*': 'MOB' } },
          { name: 'jira-dc', type: 'jira-dc', url: dataCenter.url, tokenEnv: 'JIRA_DC_TOKEN', projects: { 'com.example.none': 'NONE', '*': 'MOB' }, issueType: 'Task' },
        ],
      }),
    );
  });
  afterAll(async () => {
    await cloud.close();
    await dataCenter.close();
  });
  const ctx = useTestRelay({ SVC_CONFIG: config, JIRA_EMAIL: EMAIL, JIRA_TOKEN: TOKEN, JIRA_HOOK: SECRET, JIRA_DC_TOKEN: DC_TOKEN, SVC_RELAY_URL: 'https://relay.example.test' });

  let qa: TestMember;
  let buildId: number;
  let recordingId: number;
  beforeAll(async () => {
    qa = await ctx.members.member('QA');
    const pat = await ctx.members.pat(await ctx.members.member('Developer'), 'builds:write');
    const { body } = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', {
      commit: 'a'.repeat(40),
      repository: 'acme/app',
      branch: 'main',
    }).expect(201);
    buildId = body.id;
    await ctx.members.as(qa, 'post', `/api/v1/recordings/upload?buildId=${buildId}&sessionId=fake-android-1`).attach('file', makeVideo(), 'screen.mp4').expect(200);
    const listed = await ctx.members.as(qa, 'get', `/api/v1/recordings?buildId=${buildId}`).expect(200);
    recordingId = listed.body[0].id;
  });

  const issues = async () => (await ctx.members.as(qa, 'get', `/api/v1/builds/${buildId}/issues`).expect(200)).body.items as { id: number; tracker: string; delivery: string; key: string | null; url: string | null; status: string | null; closed: boolean; closedWhileRejected: boolean; lastError: string | null }[];
  const kick = () => ctx.relay.app.get(OutboxWorker, { strict: false }).kick();

  it('files the issue with the build\'s facts, attaches the last 30 seconds and a screenshot, retrying a 503', async () => {
    cloud.script('createIssue', { status: 503, body: { errorMessages: [`down (token ${TOKEN})`] } });
    const res = await ctx.members.as(qa, 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker: 'jira', title: 'Checkout does nothing', description: 'Tap Checkout twice.', recordingId }).expect(201);
    expect(res.body).toMatchObject({ tracker: 'jira', delivery: 'queued', key: null, closed: false });
    const failed = await until('the 503 recorded', async () => (await issues()).find((i) => i.id === res.body.id && i.lastError));
    expect(failed.delivery).toBe('queued');
    expect(failed.lastError).toContain('HTTP 503');
    expect(failed.lastError).not.toContain(TOKEN);
    // One delivery path: the outbox holds the delivery, shown per destination with its redacted error.
    const admin = await ctx.members.admin();
    const [pending] = (await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body.filter((d: { destination: string }) => d.destination === 'tracker:jira');
    expect(pending).toMatchObject({ kind: 'tracker', queued: 1, delivered: 0, failed: 0 });
    expect(pending.last_error).toContain('HTTP 503');
    expect(pending.last_error).not.toContain(TOKEN);

    ctx.relay.clock.advance(60_000);
    await kick();
    const filed = await until('filed', async () => (await issues()).find((i) => i.id === res.body.id && i.delivery === 'filed'), 60_000);
    expect(filed.key).toBe('MOB-1');
    expect(filed.url).toBe(`${cloud.url}/browse/MOB-1`);
    expect(cloud.problems()).toEqual([]);
    // Filed is the issue's step, committed before the outbox records the delivery: the count is waited for.
    const delivered = await until('the delivery recorded', async () => {
      const [row] = (await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body.filter((d: { destination: string }) => d.destination === 'tracker:jira');
      return row?.queued === 0 ? row : null;
    });
    expect(delivered).toMatchObject({ queued: 0, delivered: 1, failed: 0, last_error: null });

    const created = cloud.of('createIssue').at(-1)!.body as { fields: { project: { key: string }; summary: string; issuetype: { name: string }; description: { content: { content: { text: string }[] }[] } } };
    expect(created.fields.project).toEqual({ key: 'MOB' });
    expect(created.fields.summary).toBe('Checkout does nothing');
    expect(created.fields.issuetype).toEqual({ name: 'Bug' });
    const text = created.fields.description.content.map((p) => p.content[0].text);
    expect(text[0]).toBe('Tap Checkout twice.');
    expect(text).toContain(`Build page: https://relay.example.test/builds/${buildId}`);
    expect(text.find((t) => t.startsWith('Provenance:'))).toContain(`acme/app @ ${'a'.repeat(40)} on main`);
    expect(text.find((t) => t.startsWith('Evidence:'))).toContain(`recording #${recordingId}, the last 30 seconds`);

    const uploads = cloud.of('addAttachment');
    expect(uploads.every((u) => u.path === '/rest/api/3/issue/MOB-1/attachments')).toBe(true);
    const files = uploads.flatMap((u) => u.files);
    expect(files.map((f) => f.filename)).toEqual([`build-${buildId}-issue-${res.body.id}-clip.mp4`, `build-${buildId}-issue-${res.body.id}-screenshot.png`]);
    expect(files[0].contentType).toBe('video/mp4');
    expect(durationOf(files[0].bytes)).toBeGreaterThanOrEqual(29);
    expect(durationOf(files[0].bytes)).toBeLessThanOrEqual(31);
    expect(files[1].bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('cuts the chosen range and files on Data Center with REST v2 and a text description', async () => {
    const res = await ctx.members.as(qa, 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker: 'jira-dc', title: 'Glitch', recordingId, from: 5000, to: 15000 }).expect(201);
    await kick();
    await until('filed on DC', async () => (await issues()).find((i) => i.id === res.body.id && i.delivery === 'filed'), 60_000);
    expect(dataCenter.problems()).toEqual([]);
    const created = dataCenter.of('createIssue')[0].body as { fields: { description: string; issuetype: { name: string } } };
    expect(created.fields.issuetype).toEqual({ name: 'Task' });
    expect(created.fields.description).toContain('recording #' + recordingId + ', 5000 ms to 15000 ms');
    const clip = dataCenter.of('addAttachment')[0].files[0];
    expect(durationOf(clip.bytes)).toBeGreaterThanOrEqual(9);
    expect(durationOf(clip.bytes)).toBeLessThanOrEqual(11);
  });

  it('lists the usable trackers with the issues', async () => {
    const { body } = await ctx.members.as(await ctx.members.member('Viewer'), 'get', `/api/v1/builds/${buildId}/issues`).expect(200);
    expect(body.trackers).toEqual(['jira', 'jira-dc']);
  });

  it('refuses an unknown tracker, a Viewer, and a range that ends before it starts', async () => {
    await ctx.members.as(qa, 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker: 'nope', title: 'x' }).expect(400);
    await ctx.members.as(qa, 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker: 'jira', title: 'x', recordingId, from: 9, to: 3 }).expect(400);
    await ctx.members.as(await ctx.members.member('Viewer'), 'post', `/api/v1/builds/${buildId}/issues`).send({ tracker: 'jira', title: 'x' }).expect(403);
    await ctx.members.as(qa, 'post', '/api/v1/builds/999999/issues').send({ tracker: 'jira', title: 'x' }).expect(404);
  });

  it('takes the status back from Jira\'s signed webhook; closed while Rejected is shown as such', async () => {
    const hook = (payload: unknown, secret = SECRET) => {
      const raw = JSON.stringify(payload);
      const signature = createHmac('sha256', secret).update(raw).digest('hex');
      return request(ctx.relay.url).post('/api/v1/integrations/trackers/jira/webhook').set('content-type', 'application/json').set('x-hub-signature', `sha256=${signature}`).send(raw);
    };
    const event = (name: string, category: string) => ({ webhookEvent: 'jira:issue_updated', issue: { key: 'MOB-1', fields: { status: { name, statusCategory: { key: category } } } } });

    await hook(event('Done', 'done'), 'wrong-secret').expect(401);
    expect((await hook(event('In Progress', 'indeterminate')).expect(200)).body).toEqual({ applied: 1 });
    let issue = (await issues()).find((i) => i.key === 'MOB-1' && i.tracker === 'jira')!;
    expect(issue).toMatchObject({ status: 'In Progress', closed: false, closedWhileRejected: false });

    await ctx.members.as(qa, 'patch', `/api/v1/builds/${buildId}`).send({ status_label: 'Rejected' }).expect(200);
    await hook(event('Done', 'done')).expect(200);
    // On the build within a minute of the tracker's webhook (polled, as the dashboard would).
    issue = await until('closed while Rejected on the build', async () => (await issues()).find((i) => i.key === 'MOB-1' && i.tracker === 'jira' && i.closed), 60_000);
    expect(issue).toMatchObject({ status: 'Done', closed: true, closedWhileRejected: true });
    await request(ctx.relay.url).post('/api/v1/integrations/trackers/unknown/webhook').send({}).expect(404);
  });
});
