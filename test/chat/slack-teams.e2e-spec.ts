/**
 * Slack and Microsoft Teams (issue 39 item 2, docs/integrations.md "Slack and Microsoft Teams")
 * against a fake Slack and a fake Teams webhook on loopback (support/fake-slack.ts): a build's
 * notice is posted once and updated in place, Teams gets an Adaptive Card, and Slack's buttons,
 * signed with Slack's documented scheme, act as the member Slack's e-mail names, with the API's rules.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { HubSessionEndedEvent, HubSessionMarkedEvent, HubSessionStartedEvent } from '../../src/device-tests/hub/hub-session.events';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import { ReviewMessages } from '../../src/release-gate/build-reviews.service';
import { SlackActionMessages } from '../../src/chat/slack/slack-actions.service';
import { UsersService } from '../../src/users/users.service';
import { attachBuild } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import { FakeSlack } from './support/fake-slack';

const BOT_TOKEN = 'xoxb-1234567890-relay-test-token';
const SIGNING_SECRET = 'slack-signing-secret-for-tests';
const CHANNEL = 'C0RELAYQA';
const slack = new FakeSlack(BOT_TOKEN);

describe('Slack and Teams notices and Slack buttons', () => {
  const config = forgeConfigPath();
  beforeAll(async () => {
    await slack.start();
    writeFileSync(
      config,
      JSON.stringify({
        chat: {
          slack: { botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SECRET', apiUrl: `${slack.url}/api`, channels: [{ channel: CHANNEL, branches: ['main'] }] },
          teams: [{ name: 'qa', urlEnv: 'TEAMS_QA_URL', apps: ['*'] }],
        },
      }),
    );
  });
  afterAll(() => slack.close());
  // The Teams URL is read when the relay starts (after the fake listens): a getter defers it.
  const env: Record<string, string> = { SVC_CONFIG: config, SLACK_BOT: BOT_TOKEN, SLACK_SECRET: SIGNING_SECRET, SVC_RELAY_URL: 'https://relay.example.test', SVC_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
  Object.defineProperty(env, 'TEAMS_QA_URL', { enumerable: true, get: () => `${slack.url}/teams/qa?sig=teams-signature-secret` });
  const ctx = useTestRelay(env);

  let dev: TestMember;
  let qa: TestMember;
  let viewer: TestMember;
  let admin: TestMember;
  let buildId: number;
  beforeAll(async () => {
    admin = await ctx.members.member('Admin');
    dev = await ctx.members.member('Developer');
    qa = await ctx.members.member('QA');
    viewer = await ctx.members.member('Viewer');
    slack.user('UQA', qa.email.toUpperCase());
    slack.user('UVIEWER', viewer.email);
    slack.user('UDEV', dev.email);
    slack.user('UNOBODY', 'nobody@elsewhere.test');
  });

  const kick = () => ctx.relay.app.get(OutboxWorker).kick();
  const sign = (body: string, at = Math.floor(ctx.relay.clock.nowMs() / 1000)) => ({
    'x-slack-request-timestamp': String(at),
    'x-slack-signature': `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${at}:${body}`).digest('hex')}`,
  });
  const pressBody = (user: string, actionId: string, responseUrl = `${slack.url}/hooks/actions/T1/123/abc`) =>
    new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: user, username: user.toLowerCase() },
        response_url: responseUrl,
        actions: [{ type: 'button', action_id: actionId, block_id: 'svc_review', value: String(buildId), action_ts: '1700000000.1' }],
      }),
    }).toString();
  const press = (body: string, headers = sign(body)) =>
    ctx.relay.http().post('/api/v1/integrations/slack/actions').set('content-type', 'application/x-www-form-urlencoded').set(headers).send(body);
  const reviews = async () => (await ctx.members.as(qa, 'get', `/api/v1/builds/${buildId}/reviews`).expect(200)).body.reviews as { reviewer_id: number; verdict: string }[];

  it('posts a new build to the channel and Teams, then updates the same Slack message when its status changes', async () => {
    const { body } = await attachBuild(ctx.members.as(dev, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main', repository: 'acme/app', commit: 'c'.repeat(40) }).expect(201);
    buildId = body.id;
    const [posted] = await until('the notice posted', () => slack.of('chat.postMessage').length === 1 && slack.of('chat.postMessage'), 30_000);
    expect(posted.body.channel).toBe(CHANNEL);
    expect(String(posted.body.text)).toContain('No status');
    const blocks = posted.body.blocks as { type: string; elements?: { action_id: string; value: string }[] }[];
    expect(blocks.find((b) => b.type === 'actions')!.elements!.map((e) => [e.action_id, e.value])).toEqual([
      ['svc_approve', String(buildId)],
      ['svc_request_changes', String(buildId)],
      ['svc_reject', String(buildId)],
    ]);
    expect(JSON.stringify(blocks)).toContain(`https://relay.example.test/builds/${buildId}`);

    const card = await until('the Teams card', () => slack.teams[0], 30_000);
    expect(card.name).toBe('qa');
    expect(card.query).toBe('?sig=teams-signature-secret');
    const content = (card.body.attachments as { content: { type: string; version: string; body: { type: string; facts?: { title: string; value: string }[] }[]; actions: { type: string; url: string }[] } }[])[0].content;
    expect(content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(content.body.find((b) => b.type === 'FactSet')!.facts).toContainEqual({ title: 'Status', value: 'No status' });
    expect(content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the build', url: `https://relay.example.test/builds/${buildId}` }]);

    await ctx.members.as(dev, 'patch', `/api/v1/builds/${buildId}`).send({ status_label: 'In Progress' }).expect(200);
    const update = await until('the update in place', () => slack.of('chat.update').find((c) => String(c.body.text).includes('In Progress')), 30_000);
    expect(update.body).toMatchObject({ channel: CHANNEL, ts: posted.ts });
    expect(slack.of('chat.postMessage')).toHaveLength(1);
    expect(slack.message(CHANNEL, String(update.body.ts))!.text).toContain('In Progress');
    expect(slack.problems()).toEqual([]);

    // Every notice sent (a gate evaluation after the upload may still be on its way: waited for, not assumed).
    const slackDestination = await until('the channel\'s queue empty', async () => {
      const found = ((await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body as { destination: string; queued: number }[]).find((d) => d.destination === `slack:${CHANNEL}`);
      return found?.queued === 0 ? found : null;
    }, 30_000);
    expect(slackDestination).toMatchObject({ queued: 0, failed: 0 });
  });

  it('device-test results update the message in place; Teams hears of the result, not of the run starting', async () => {
    const events = ctx.relay.app.get(EventEmitter2);
    const teamsBefore = slack.teams.length;
    const deviceTests = (c: { body: Record<string, unknown> }) => JSON.stringify(c.body.blocks).match(/\*Device tests\*\\n([^"]*)/)?.[1];
    events.emit(HubSessionStartedEvent.eventName, new HubSessionStartedEvent('hub-1', 'device-1', buildId, 'smoke', dev.id));
    await until('the running update', () => slack.of('chat.update').find((c) => deviceTests(c)?.includes('Running')), 30_000);
    // As the hub does: the client's svc:status is kept (awaited) before its session ends.
    const verdict = { status: 'failed', reason: 'login broke' } as const;
    await events.emitAsync(HubSessionMarkedEvent.eventName, new HubSessionMarkedEvent('hub-1', buildId, verdict));
    events.emit(HubSessionEndedEvent.eventName, new HubSessionEndedEvent('hub-1', 'device-1', buildId, 'deleted', verdict));
    const failed = await until('the failed update', () => slack.of('chat.update').find((c) => deviceTests(c)?.includes('Failed')), 30_000);
    expect(failed.body.ts).toBe(slack.of('chat.postMessage')[0].ts);
    const card = await until('the Teams card of the result', () => slack.teams.slice(teamsBefore).find((t) => JSON.stringify(t.body).includes('❌ Failed')), 30_000);
    expect(JSON.stringify(card.body)).toContain('Device tests');
    expect(slack.teams.slice(teamsBefore).filter((t) => JSON.stringify(t.body).includes('⏳ Running'))).toEqual([]);
    expect(slack.of('chat.postMessage')).toHaveLength(1);
  });

  it('a signed Approve acts as the member whose e-mail Slack gives, audited and answered in Slack; the gate it passes updates the message', async () => {
    const gate = (c: { body: Record<string, unknown> }) => JSON.stringify(c.body.blocks).match(/\*Release gate\*\\n([^"]*)/)?.[1];
    await ctx.members.as(admin, 'put', '/api/v1/release-gate/policies/default').send({ policy: { approvals: { QA: 1 } } }).expect(200);
    // Not met yet: one QA approval missing.
    await until('the gate in Slack', () => slack.of('chat.update').find((c) => gate(c)?.includes('needs 1 more QA approval')), 30_000);
    const teamsBefore = slack.teams.length;
    const res = await press(pressBody('UQA', 'svc_approve')).expect(200);
    expect(res.body).toEqual({ outcome: 'applied' });
    expect(await reviews()).toEqual([expect.objectContaining({ reviewer_id: qa.id, verdict: 'approve' })]);
    expect(slack.of('users.info').at(-1)!.body.user).toBe('UQA');
    await kick();
    const answer = await until('the answer in Slack', () => slack.responses.find((r) => String(r.body.text).includes('approved')), 30_000);
    expect(answer.body).toMatchObject({ response_type: 'ephemeral', text: `You approved build #${buildId}.` });
    const audit = await until('the audit entry', async () => {
      const { body } = await ctx.members.as(admin, 'get', '/api/v1/audit?action=slack.button_pressed').expect(200);
      return (body.items as { actor_id: number; via: string; target: string; details: Record<string, unknown> }[]).find((e) => e.actor_id === qa.id);
    });
    expect(audit).toMatchObject({ via: 'slack', target: `build:${buildId}` });
    expect(audit.details).toMatchObject({ action: 'approve', outcome: 'applied', slack_user: 'UQA' });
    const approved = await until('the passed gate in Slack', () => slack.of('chat.update').find((c) => gate(c)?.startsWith('✅ Passed')), 30_000);
    expect(approved.body.ts).toBe(slack.of('chat.postMessage')[0].ts);
    await until('the Teams card of the new gate state', () => slack.teams.slice(teamsBefore).find((t) => JSON.stringify(t.body).includes('✅ Passed')), 30_000);
    await ctx.members.as(admin, 'put', '/api/v1/release-gate/policies/default').send({ policy: null }).expect(200);
  });

  it('refuses a Viewer with the reason, in the answer and in Slack', async () => {
    const before = slack.responses.length;
    const res = await press(pressBody('UVIEWER', 'svc_request_changes')).expect(200);
    expect(res.body).toEqual({ outcome: 'refused', reason: ReviewMessages.viewer });
    await kick();
    const answer = await until('the refusal in Slack', () => slack.responses.slice(before).find((r) => String(r.body.text).startsWith('Not done')), 30_000);
    expect(answer.body.text).toBe(`Not done: ${ReviewMessages.viewer}`);
    expect((await reviews()).map((r) => r.reviewer_id)).toEqual([qa.id]);
  });

  it('refuses an unknown Slack user and a deactivated member', async () => {
    expect((await press(pressBody('UNOBODY', 'svc_approve')).expect(200)).body).toEqual({ outcome: 'refused', reason: SlackActionMessages.unknownUser });
    await ctx.relay.app.get(UsersService).update(dev.id, { active: false });
    try {
      expect((await press(pressBody('UDEV', 'svc_approve')).expect(200)).body).toEqual({ outcome: 'refused', reason: SlackActionMessages.inactive });
    } finally {
      await ctx.relay.app.get(UsersService).update(dev.id, { active: true });
    }
    expect((await reviews()).map((r) => r.reviewer_id)).toEqual([qa.id]);
  });

  it('answers 401 to a bad signature and to a timestamp older than five minutes', async () => {
    const body = pressBody('UQA', 'svc_reject');
    await press(body, { ...sign(body), 'x-slack-signature': `v0=${'0'.repeat(64)}` }).expect(401);
    await press(body, sign(body, Math.floor(ctx.relay.clock.nowMs() / 1000) - 301)).expect(401);
    await press(body, {} as ReturnType<typeof sign>).expect(401);
    // Signed over other bytes than those sent.
    await press(`${body}&x=1`, sign(body)).expect(401);
    const { body: build } = await ctx.members.as(qa, 'get', `/api/v1/builds/${buildId}`).expect(200);
    expect(build.status_label).toBe('In Progress');
  });

  it("Reject follows the team's reason rule, then rejects and updates the message in place", async () => {
    await ctx.members.as(admin, 'put', '/api/v1/settings/review').send({ reject_reason_required: true }).expect(200);
    const refused = await press(pressBody('UQA', 'svc_reject')).expect(200);
    expect(refused.body.outcome).toBe('refused');
    expect(refused.body.reason).toMatch(/asks for a reason/);
    await ctx.members.as(admin, 'put', '/api/v1/settings/review').send({ reject_reason_required: false }).expect(200);

    expect((await press(pressBody('UQA', 'svc_reject')).expect(200)).body).toEqual({ outcome: 'applied' });
    const { body: build } = await ctx.members.as(qa, 'get', `/api/v1/builds/${buildId}`).expect(200);
    expect(build.status_label).toBe('Rejected');
    const update = await until('the Rejected update', () => slack.of('chat.update').find((c) => String(c.body.text).includes('Rejected by')), 30_000);
    expect(update.body.ts).toBe(slack.of('chat.postMessage')[0].ts);
    expect(slack.of('chat.postMessage')).toHaveLength(1);
    expect(slack.problems()).toEqual([]);
  });

  it('Admins add a Slack channel for one branch through the API, and its builds reach it; a Teams URL on this host is refused', async () => {
    const routes = (who: TestMember) => ctx.members.as(who, 'post', '/api/v1/integrations/chat/routes');
    const { body: route } = await routes(admin).send({ kind: 'slack', channel: 'C0DASH', branches: ['release'] }).expect(201);
    expect(route).toEqual({ id: expect.any(Number), origin: 'dashboard', kind: 'slack', channel: 'C0DASH', name: null, apps: null, branches: ['release'], problem: null });
    await routes(admin).send({ kind: 'slack', channel: 'C0DASH' }).expect(409);
    await routes(admin).send({ kind: 'slack', channel: CHANNEL }).expect(409);
    expect((await routes(admin).send({ kind: 'slack', channel: '#general' }).expect(400)).body.error).toMatch(/^channel must be a Slack channel id/);
    expect((await routes(admin).send({ kind: 'teams', name: 'lan', url: `${slack.url}/teams/lan` }).expect(400)).body.error).toMatch(/^Teams URL refused/);
    await routes(qa).send({ kind: 'slack', channel: 'C0QA' }).expect(403);

    const { body: settings } = await ctx.members.as(admin, 'get', '/api/v1/integrations/chat').expect(200);
    expect(settings.slack).toEqual({ bot_token_env: 'SLACK_BOT', has_bot_token: true, signing_secret_env: 'SLACK_SECRET', has_signing_secret: true, request_url: 'https://relay.example.test/api/v1/integrations/slack/actions' });
    expect(settings.routes.map((r: { origin: string; channel: string | null; name: string | null }) => [r.origin, r.channel ?? r.name])).toEqual([['file', CHANNEL], ['file', 'qa'], ['dashboard', 'C0DASH']]);
    expect(JSON.stringify(settings)).not.toContain('teams-signature-secret');

    const { body } = await attachBuild(ctx.members.as(dev, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'release' }).expect(201);
    const posted = await until('the release build in C0DASH', () => slack.of('chat.postMessage').find((c) => c.body.channel === 'C0DASH'), 30_000);
    expect(JSON.stringify(posted.body.blocks)).toContain(`"value":"${body.id}"`);
    expect(slack.of('chat.postMessage').filter((c) => c.body.channel === CHANNEL)).toHaveLength(1);
    await ctx.members.as(admin, 'delete', `/api/v1/integrations/chat/routes/${route.id}`).expect(204);
    await ctx.members.as(admin, 'delete', `/api/v1/integrations/chat/routes/${route.id}`).expect(404);
  });

  it('retries a 503 from Slack with backoff; the destination shows the error without the bot token', async () => {
    slack.script('chat.postMessage', { status: 503, body: { ok: false, error: `down for ${BOT_TOKEN}` } });
    const before = slack.of('chat.postMessage').length;
    const { body } = await attachBuild(ctx.members.as(dev, 'post', '/api/v1/builds'), 'string-label.apk', { branch: 'main' }).expect(201);
    const destination = async () =>
      ((await ctx.members.as(admin, 'get', '/api/v1/outbox/destinations').expect(200)).body as { destination: string; queued: number; last_error: string | null }[]).find(
        (d) => d.destination === `slack:${CHANNEL}`,
      );
    const failed = await until('the 503 recorded', async () => {
      const d = await destination();
      return d?.queued === 1 && d.last_error ? d : null;
    }, 30_000);
    expect(failed.last_error).toContain('HTTP 503');
    expect(failed.last_error).not.toContain(BOT_TOKEN);
    ctx.relay.clock.advance(60_000);
    await kick();
    const posted = await until('posted after the retry', () => slack.of('chat.postMessage').slice(before).find((c) => JSON.stringify(c.body.blocks).includes(`"value":"${body.id}"`)), 30_000);
    expect(posted.body.channel).toBe(CHANNEL);
    expect((await destination())!.queued).toBe(0);
  });

  it('never fetches a response URL that is not Slack\'s', async () => {
    const before = slack.responses.length;
    const elsewhere = `http://localhost:${new URL(slack.url).port}/hooks/elsewhere`;
    expect((await press(pressBody('UNOBODY', 'svc_approve', elsewhere)).expect(200)).body.outcome).toBe('refused');
    await kick();
    await press(pressBody('UNOBODY', 'svc_approve')).expect(200);
    await kick();
    await until('the second answer', () => slack.responses.length === before + 1);
    expect(slack.responses.slice(before).map((r) => r.path)).toEqual(['/hooks/actions/T1/123/abc']);
  });
});
