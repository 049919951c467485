import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOUR_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { attachBuild, EXPECTED } from '../support/build-fixtures';
import { itUnless } from '../support/describe-unless';
import { sessionCookieFrom } from '../support/factory';
import { images } from '../support/images';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { LanReceiver, netnsSkipReason } from '../webhooks/support/lan-receiver';
import { eventually, signatureVerifies } from '../webhooks/support/webhook-helpers';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));
const APK = 'string-label.apk';
const webhookSkip = netnsSkipReason();

/**
 * One team's day through the real endpoints only: init, invitations, a CI token, an upload, review,
 * a comment with a screenshot, the webhook, a recording, scheduled deletion and the purge. Each step
 * builds on the previous one, so they run in order on one relay. The build TTL is one day, so the
 * clock moves less than a session's 7 days and nobody has to sign in again.
 */
describe('a day in the life of a team (builds ↔ comments ↔ webhooks ↔ recordings)', () => {
  let relay: TestRelay;
  let lan: LanReceiver | undefined;
  const cookies: Record<'admin' | 'developer' | 'qa', string> = { admin: '', developer: '', qa: '' };
  let ciToken = '';
  let buildId = 0;
  let buildFile = '';
  let attachmentUrl = '';
  let recordingUrl = '';

  beforeAll(async () => {
    if (!webhookSkip) lan = await LanReceiver.start();
    relay = await startTestRelay({ SVC_BUILD_TTL_DAYS: '1' });
  });
  afterAll(async () => {
    await relay?.close();
    await lan?.stop();
  });

  const as = (who: keyof typeof cookies, method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    relay.http()[method](path).set('Cookie', cookies[who]);
  const withCi = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    relay.http()[method](path).set('Authorization', `Bearer ${ciToken}`);
  const builds = () => readdirSync(join(relay.dataDir, 'builds'));
  const recordings = () => readdirSync(join(relay.dataDir, 'recordings'));

  async function joinTeam(email: string, role: string, displayName: string): Promise<string> {
    const invite = await as('admin', 'post', '/api/v1/team/invite').send({ email, role }).expect(201);
    expect(invite.body.emailSent).toBe(false); // no SMTP configured
    expect((await relay.http().get(`/api/v1/invitations/verify?token=${invite.body.token}`).expect(200)).body).toMatchObject({ role });
    const accepted = await relay
      .http()
      .post('/api/v1/invitations/accept')
      .field('token', invite.body.token)
      .field('password', `${role} password`)
      .field('display_name', displayName)
      .expect(200);
    return sessionCookieFrom(accepted.headers['set-cookie']);
  }

  it('the first Admin initialises the relay from its host and signs in', async () => {
    expect((await relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual({ initialized: false, canInitialize: true });
    await relay.http().post('/api/v1/auth/init').send({ email: 'ada@example.com', password: 'admin password' }).expect(201);
    const login = await relay.http().post('/api/v1/auth/login').send({ email: 'ada@example.com', password: 'admin password' }).expect(200);
    expect(login.body).toEqual({ ok: true, role: 'Admin' });
    cookies.admin = sessionCookieFrom(login.headers['set-cookie']);
  });

  it('invites a Developer and a QA member, who accept through their invite tokens', async () => {
    cookies.developer = await joinTeam('dev@example.com', 'Developer', 'Dana Dev');
    cookies.qa = await joinTeam('qa@example.com', 'QA', 'Quinn QA');
    expect((await as('developer', 'get', '/api/v1/auth/me').expect(200)).body).toEqual(expect.objectContaining({ role: 'Developer', displayName: 'Dana Dev' }));
    const team = await as('admin', 'get', '/api/v1/team/members').expect(200);
    expect(team.body.map((m: { role: string }) => m.role)).toEqual(['Admin', 'Developer', 'QA']);
  });

  it('the Developer creates a CI token (default scopes) and CI uploads a real APK with an initial status', async () => {
    ciToken = (await as('developer', 'post', '/api/v1/tokens').send({ name: 'ci' }).expect(201)).body.token;
    expect((await as('developer', 'get', '/api/v1/tokens').expect(200)).body[0].scope).toBe('view,builds:write');

    const upload = await attachBuild(withCi('post', '/api/v1/builds'), APK, { status: 'In Progress', label: 'main' }).expect(201);
    const { name, version_name, build_number, bundle_id, platform } = EXPECTED[APK];
    expect(upload.body).toEqual({
      id: expect.any(Number),
      app_id: expect.any(Number),
      name,
      version_name,
      build_number,
      bundle_id,
      status_label: 'In Progress',
      platform,
      uploaded_at: expect.stringMatching(/\.\d{3}Z$/),
    });
    buildId = upload.body.id;
    [buildFile] = builds();
    expect(builds()).toHaveLength(1);
    const apps = await withCi('get', '/api/v1/apps').expect(200); // the same token also has view
    expect(apps.body.items).toEqual([expect.objectContaining({ latest_build_id: buildId, status_label: 'In Progress' })]);
  });

  it('the CI token cannot change the review status: PATCH /builds/:id is cookie-only (spec §5.3), so 401', async () => {
    const res = await withCi('patch', `/api/v1/builds/${buildId}`).send({ status_label: 'Done' }).expect(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
    await withCi('post', `/api/v1/builds/${buildId}/schedule-deletion`).expect(401);
    expect((await withCi('get', `/api/v1/builds/${buildId}`).expect(200)).body.status_label).toBe('In Progress');
  });

  it('CI registers a signed webhook with its token', async () => {
    const url = lan ? lan.url('/hooks/review') : 'http://10.231.255.2:9/hooks/review'; // never reached without netns
    const res = await withCi('post', '/api/v1/webhooks').send({ url, secret: 'team-secret' }).expect(201);
    expect(res.body).toEqual(expect.objectContaining({ url, enabled: true, has_secret: true }));
  });

  it('QA comments with a PNG screenshot; the attachment is served to the team', async () => {
    await as('qa', 'post', '/api/v1/comments')
      .field('build_id', String(buildId))
      .field('body', 'Crash on the login screen, see screenshot')
      .attach('attachment', images.png(), 'screen.png')
      .expect(201);
    const list = await as('developer', 'get', `/api/v1/comments?build_id=${buildId}`).expect(200);
    expect(list.body).toEqual([
      expect.objectContaining({ author: 'Quinn QA', attachments: [expect.objectContaining({ mime: 'image/png' })] }),
    ]);
    attachmentUrl = list.body[0].attachments[0].file_path;
    expect(attachmentUrl).toMatch(/^\/uploads\/comments\/[0-9a-f]{32}\.png$/);
    await as('developer', 'get', attachmentUrl).expect(200);
    await withCi('get', attachmentUrl).expect(200); // view scope
  });

  it('the Developer marks the build Done with the cookie', async () => {
    await as('developer', 'patch', `/api/v1/builds/${buildId}`).send({ status_label: 'Done' }).expect(200, { ok: true });
    const build = await as('developer', 'get', `/api/v1/builds/${buildId}`).expect(200);
    expect(build.body).toEqual(expect.objectContaining({ status_label: 'Done', completed_at: expect.any(String), delete_after: null }));
  });

  itUnless(webhookSkip, 'the webhook receiver gets exactly one signed build.status_changed POST', async () => {
    const [delivery] = await lan!.waitFor('/hooks/review', 1);
    expect(JSON.parse(delivery.body.toString())).toEqual({
      event: 'build.status_changed',
      build: { id: String(buildId), platform: 'android', appVersion: EXPECTED[APK].version_name, status: 'Done' },
      changedAt: expect.stringMatching(/\.\d{3}Z$/),
    });
    expect(signatureVerifies('team-secret', delivery.body, delivery.headers['x-svc-signature'])).toBe(true);
    expect(lan!.requestsTo('/hooks/review')).toHaveLength(1);
    const hooks = await as('developer', 'get', '/api/v1/webhooks').expect(200);
    // The attempt is logged once the receiver's answer is in, a moment after the receiver saw the POST.
    const log = await eventually(async () => {
      const res = await as('developer', 'get', `/api/v1/webhooks/${hooks.body.webhooks[0].id}/deliveries`).expect(200);
      return res.body.deliveries.length ? res.body.deliveries : undefined;
    }, 3000, 'the delivery log entry');
    expect(log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
  });

  it('the Developer schedules deletion; a recording of the build is uploaded shortly before it is due', async () => {
    const scheduled = await as('developer', 'post', `/api/v1/builds/${buildId}/schedule-deletion`).expect(200);
    expect(scheduled.body).toEqual({ ok: true, delete_after: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    relay.clock.advance(23 * HOUR_MS);
    await relay.app.get(ScheduledPurgesService).runAll();
    await as('developer', 'get', `/api/v1/builds/${buildId}`).expect(200); // not due yet

    recordingUrl = (await as('qa', 'post', `/api/v1/recordings/upload?buildId=${buildId}&sessionId=fake-android-1`).attach('video', WEBM, 's.webm').expect(200)).body.url;
    expect((await as('qa', 'get', `/api/v1/recordings?buildId=${buildId}`).expect(200)).body).toHaveLength(1);
  });

  it('once due, the purge removes the build, its file, its comments and their attachment files, from disk and API', async () => {
    relay.clock.advance(2 * HOUR_MS);
    await relay.app.get(ScheduledPurgesService).runAll();

    expect((await as('developer', 'get', `/api/v1/builds/${buildId}`).expect(404)).body).toEqual({ error: 'Build not found' });
    await withCi('get', `/api/v1/builds/${buildId}`).expect(404);
    await as('developer', 'get', `/api/v1/builds/${buildId}/download`).expect(404);
    expect((await withCi('get', '/api/v1/builds').expect(200)).body).toEqual({ items: [], total: 0 });
    expect(existsSync(join(relay.dataDir, 'builds', buildFile))).toBe(false);
    expect(builds()).toEqual([]);
    await as('qa', 'get', `/api/v1/comments?build_id=${buildId}`).expect(404);
    // The attachment files go on builds.deleted (a listener), so give it a moment.
    await eventually(async () => (existsSync(join(relay.dataDir, attachmentUrl)) ? undefined : true), 3000, 'attachment removal');
    expect(readdirSync(join(relay.dataDir, 'uploads', 'comments'))).toEqual([]);
    await as('qa', 'get', attachmentUrl).expect(404);
    // The app stays (an app is deleted only on request), now without builds.
    const apps = await as('developer', 'get', '/api/v1/apps').expect(200);
    expect(apps.body.items).toEqual([expect.objectContaining({ latest_build_id: null })]);
  });

  it("the build's recording stays listable and downloadable until its own 72 hours, then goes", async () => {
    const listed = await as('qa', 'get', `/api/v1/recordings?buildId=${buildId}`).expect(200);
    expect(listed.body).toEqual([expect.objectContaining({ url: recordingUrl, mime: 'video/webm' })]);
    await as('qa', 'get', recordingUrl).expect(200);
    expect(recordings()).toHaveLength(1);

    relay.clock.advance(72 * HOUR_MS - 2 * HOUR_MS - 60_000); // one minute before its 72 hours
    await relay.app.get(ScheduledPurgesService).runAll();
    await as('qa', 'get', recordingUrl).expect(200);

    relay.clock.advance(60_000);
    await as('qa', 'get', recordingUrl).expect(404);
    await relay.app.get(ScheduledPurgesService).runAll();
    expect((await as('qa', 'get', `/api/v1/recordings?buildId=${buildId}`).expect(200)).body).toEqual([]);
    expect(recordings()).toEqual([]);
  });
});
