import { LiveEventsService } from '../../src/live-events/live-events.service';
import { DAY_MS } from '../../src/common/time';
import { attachBuild } from '../support/build-fixtures';
import { within } from '../support/deadline';
import { MemberFactory, TestMember } from '../support/factory';
import { SseClient } from '../support/sse-client';
import { startTestRelay, TestRelay } from '../support/test-relay';

/** GET /api/v1/events (beyond the spec): the dashboard's live stream, read by a real HTTP client. */
describe('live events (server-sent events)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  const open: SseClient[] = [];

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(() => relay.close());

  async function subscribe(member: TestMember): Promise<SseClient> {
    const client = await SseClient.connect(relay.url, { Cookie: member.cookie });
    open.push(client);
    expect(client.status).toBe(200);
    await client.next('ready');
    return client;
  }

  const upload = async (by: TestMember, fields: Record<string, string> = {}) =>
    (await attachBuild(members.as(by, 'post', '/api/v1/builds'), 'string-label.apk', fields).expect(201)).body as { id: number; app_id: number };

  it('needs the session cookie: 401 { error } without one and with a PAT; text/event-stream, never cached, ready first', async () => {
    const anonymous = await SseClient.connect(relay.url, {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.body()).toEqual({ error: 'Unauthorized' });
    const pat = await members.pat(admin, 'builds:write');
    const withPat = await SseClient.connect(relay.url, { Authorization: `Bearer ${pat}` });
    expect(withPat.status).toBe(401);

    const qa = await members.member('QA');
    const client = await SseClient.connect(relay.url, { Cookie: qa.cookie });
    open.push(client);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-store');
    expect((await client.next('ready')).data).toEqual({ user_id: qa.id, role: 'QA' });
  });

  it('tells every role about new builds (a CI token upload), status changes, label and schedule changes, comments and deletions', async () => {
    const viewer = await members.member('Viewer');
    const qa = await members.member('QA');
    const viewerStream = await subscribe(viewer);
    const qaStream = await subscribe(qa);

    const ci = await members.pat(qa, 'builds:write');
    const created = (await attachBuild(members.withPat(ci, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body;
    for (const stream of [viewerStream, qaStream]) {
      expect((await stream.next('build.created', (d) => d.build_id === created.id)).data).toEqual({
        build_id: created.id,
        app_id: created.app_id,
        uploaded_by_id: qa.id,
      });
    }

    await members.as(qa, 'patch', `/api/v1/builds/${created.id}`).send({ status_label: 'Done' }).expect(200);
    const changed = await viewerStream.next('build.status_changed', (d) => d.build_id === created.id);
    expect(changed.data).toEqual({
      build_id: created.id,
      app_id: created.app_id,
      from_status: null,
      to_status: 'Done',
      changed_by_id: qa.id,
      changed_by: qa.email.split('@')[0],
      changed_at: expect.stringMatching(/Z$/),
    });

    await members.as(qa, 'patch', `/api/v1/builds/${created.id}`).send({ version_label: 'rc2' }).expect(200);
    await viewerStream.next('build.updated', (d) => d.build_id === created.id);
    await members.as(qa, 'post', `/api/v1/builds/${created.id}/schedule-deletion`).expect(200);
    await viewerStream.next('build.updated', (d) => d.build_id === created.id);

    const comment = (await members.as(viewer, 'post', '/api/v1/comments').field('build_id', String(created.id)).field('body', 'looks good').expect(201)).body;
    expect((await qaStream.next('comment.created')).data).toEqual({ comment_id: comment.id, build_id: created.id });
    await members.as(viewer, 'delete', `/api/v1/comments/${comment.id}`).expect(204);
    expect((await qaStream.next('comment.deleted')).data).toEqual({ comment_id: comment.id, build_id: created.id });

    await members.as(admin, 'delete', `/api/v1/apps/${created.app_id}`).expect(200);
    expect((await viewerStream.next('builds.deleted')).data).toEqual({ build_ids: [created.id] });
  });

  it('ends the stream when its session ends: sign-out, another browser unaffected', async () => {
    const dev = await members.member('Developer');
    const otherBrowser = await members.login(dev.email);
    const stream = await subscribe(dev);
    const other = await subscribe({ ...dev, cookie: otherBrowser });
    await members.as(dev, 'post', '/api/v1/auth/logout').expect(200);
    expect((await stream.next('session.ended')).data).toEqual({ reason: 'signed_out' });
    await stream.ended;
    // The other browser's stream stays open and keeps receiving.
    const build = await upload(admin);
    await other.next('build.created', (d) => d.build_id === build.id);
  });

  it('ends every stream of a member whose password is reset or who is removed', async () => {
    const live = relay.app.get(LiveEventsService);
    const dev = await members.member('Developer');
    const devStream = await subscribe(dev);
    const token = (await members.as(admin, 'post', `/api/v1/team/members/${dev.id}/send-reset`).expect(200)).body.token;
    await relay.http().post('/api/v1/auth/reset-password').send({ token, password: 'a brand new one' }).expect(200);
    expect((await devStream.next('session.ended')).data).toEqual({ reason: 'signed_out' });
    await devStream.ended;

    const qa = await members.member('QA');
    const qaStream = await subscribe(qa);
    const before = live.size;
    await members.as(admin, 'delete', `/api/v1/team/members/${qa.id}`).expect(204);
    expect((await qaStream.next('session.ended')).data).toEqual({ reason: 'signed_out' });
    await qaStream.ended;
    expect(live.size).toBe(before - 1);
  });

  it('is role-aware: a member hears their own role change; only Admins hear team changes', async () => {
    const qa = await members.member('QA');
    const viewer = await members.member('Viewer');
    const adminStream = await subscribe(admin);
    const qaStream = await subscribe(qa);
    const viewerStream = await subscribe(viewer);
    await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'Viewer' }).expect(200);
    expect((await qaStream.next('role.changed')).data).toEqual({ role: 'Viewer' });
    expect((await adminStream.next('team.changed')).data).toEqual({ member_id: qa.id });
    // A later event that everyone gets proves the others' streams are past that point.
    const build = await upload(admin);
    await viewerStream.next('build.created', (d) => d.build_id === build.id);
    await qaStream.next('build.created', (d) => d.build_id === build.id);
    expect(viewerStream.pending()).not.toContain('team.changed');
    expect(viewerStream.pending()).not.toContain('role.changed');
    expect(qaStream.pending()).not.toContain('team.changed');
  });

  it('closes a stream whose session expired by the rule every WebSocket follows (the credential sweep), not waiting for the heartbeat', async () => {
    const qa = await members.member('QA');
    const stream = await subscribe(qa);
    relay.clock.advance(7 * DAY_MS + 1000);
    // No beat(): the sweep (once a second, relay clock) ends it, as it closes a WebSocket with 4001.
    expect((await stream.next('session.ended')).data).toEqual({ reason: 'expired' });
    await stream.ended;
    admin.cookie = await members.login(admin.email); // the admin's session expired with the clock too
  });

  it('is described in the OpenAPI document as text/event-stream, with a schema per event payload', async () => {
    const doc = (await relay.http().get('/api/v1/openapi.json').expect(200)).body;
    const ok = doc.paths['/api/v1/events'].get.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    expect(ok.content['text/event-stream'].schema['x-event-payloads']['build.created']).toEqual({ $ref: '#/components/schemas/LiveBuildCreated' });
    for (const name of ['LiveReady', 'LiveBuildCreated', 'LiveBuildStatusChanged', 'LiveComment', 'LiveSessionEnded']) {
      expect(doc.components.schemas[name]).toEqual(expect.objectContaining({ type: 'object' }));
    }
  });

  it('lets the relay shut down with streams open', async () => {
    const other = await startTestRelay();
    const otherMembers = new MemberFactory(other);
    const stream = await SseClient.connect(other.url, { Cookie: (await otherMembers.admin()).cookie });
    await stream.next('ready');
    // A stream the relay does not end holds its close forever; a close that merely took long would
    // still be inside three times the relay's own shutdown deadline, which is the margin given here.
    const deadline = 3 * other.config.limits.shutdownTimeoutMs;
    await within('the relay closing with a stream open', other.close(), deadline);
    await within('the stream ending', stream.ended);
  }, 60_000);
});
