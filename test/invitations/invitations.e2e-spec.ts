import { DataSource } from 'typeorm';
import { DAY_MS } from '../../src/common/time';
import { images } from '../support/images';
import { MemberFactory, sessionCookieFrom, TestMember } from '../support/factory';
import { linkIn, SmtpSink } from '../support/smtp-sink';
import { startTestRelay, TestRelay } from '../support/test-relay';

const RELAY_URL = 'https://relay.example.com';

describe('invitations', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let smtp: SmtpSink;
  let admin: TestMember;

  beforeAll(async () => {
    smtp = await new SmtpSink().start();
    relay = await startTestRelay({ ...smtp.env(), SVC_RELAY_URL: RELAY_URL });
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(async () => {
    await relay.close();
    await smtp.close();
  });

  const invite = (body: object) => members.as(admin, 'post', '/api/v1/team/invite').send(body);
  const accept = (fields: Record<string, string>) => {
    const req = relay.http().post('/api/v1/invitations/accept');
    for (const [name, value] of Object.entries(fields)) req.field(name, value);
    return req;
  };

  it('invite → e-mail with the link → page → verify → accept → signed in; the token then is 410 everywhere', async () => {
    const res = await invite({ email: 'New.Person@Example.com', role: 'Developer' }).expect(201);
    expect(res.body).toEqual({ token: expect.stringMatching(/^[0-9a-f]{64}$/), emailSent: true, inviteUrl: `${RELAY_URL}/invite?token=${res.body.token}` });

    const mail = await smtp.lastTo('new.person@example.com');
    const link = linkIn(mail, '/invite');
    expect(link).toBe(res.body.inviteUrl);
    expect(mail.raw).toContain('Content-Type: text/plain');
    expect(mail.raw).toContain('Content-Type: text/html');
    const token = new URL(link).searchParams.get('token')!;

    // The link opens a dashboard page (served from web/dist, or the "not built" page in a bare
    // checkout): never cached, and the token in its URL is never sent on as a Referer.
    const page = await relay.http().get(`/invite?token=${token}`);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const verify = await relay.http().get(`/api/v1/invitations/verify?token=${token}`).expect(200);
    // Beyond spec §4's `{ role }`: what the invitee's page shows (docs/team.md).
    expect(verify.body).toEqual({ role: 'Developer', email: 'new.person@example.com', team_name: expect.any(String), invited_by: 'admin' });

    const accepted = await accept({ token, password: 'a new password', display_name: 'New Person' }).expect(200);
    expect(accepted.body).toEqual({ ok: true });
    const cookie = sessionCookieFrom(accepted.headers['set-cookie']);
    const me = await relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200);
    expect(me.body).toEqual(expect.objectContaining({ email: 'new.person@example.com', displayName: 'New Person', role: 'Developer', avatarUrl: null }));
    await members.login('new.person@example.com', 'a new password');

    const again = await accept({ token, password: 'another password' }).expect(410);
    expect(again.body).toEqual({ error: 'Invitation expired or not found' });
    // Used, not expired: the spec's message, and the header that tells the two apart.
    const used = await relay.http().get(`/api/v1/invitations/verify?token=${token}`).expect(410);
    expect(used.body).toEqual({ error: 'Invitation expired or not found' });
    expect(used.headers['x-invitation-state']).toBe('used');
  });

  it('stores only a hash of the token', async () => {
    const res = await invite({ email: 'hashed@example.com' }).expect(201);
    const rows: Array<{ token_hash: string }> = await relay.app.get(DataSource).query('SELECT token_hash FROM invitations');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.token_hash)).not.toContain(res.body.token);
    const dump = JSON.stringify(await relay.app.get(DataSource).query('SELECT * FROM invitations'));
    expect(dump).not.toContain(res.body.token);
  });

  it('defaults to QA; tokens differ across invitations', async () => {
    const a = await invite({}).expect(201);
    const b = await invite({}).expect(201);
    expect(a.body.token).not.toBe(b.body.token);
    expect((await relay.http().get(`/api/v1/invitations/verify?token=${a.body.token}`).expect(200)).body).toMatchObject({ role: 'QA', email: null });
  });

  it('rejects bad invite bodies (400)', async () => {
    expect((await invite({ email: 'not-an-email' }).expect(400)).body.error).toMatch(/email/);
    expect((await invite({ role: 'Owner' }).expect(400)).body.error).toMatch(/role/);
  });

  it('409 when the e-mail already belongs to a member, in any letter case', async () => {
    const res = await invite({ email: ' ADMIN@example.COM ' }).expect(409);
    expect(res.body).toEqual({ error: 'This e-mail already belongs to a member' });
  });

  it('is 410 after 7 days', async () => {
    const res = await invite({ email: 'late@example.com' }).expect(201);
    relay.clock.advance(7 * DAY_MS - 60_000);
    await relay.http().get(`/api/v1/invitations/verify?token=${res.body.token}`).expect(200);
    relay.clock.advance(60_000);
    const expired = await relay.http().get(`/api/v1/invitations/verify?token=${res.body.token}`).expect(410);
    expect(expired.headers['x-invitation-state']).toBe('expired');
    const unknown = await relay.http().get(`/api/v1/invitations/verify?token=${'b'.repeat(64)}`).expect(410);
    expect(unknown.headers['x-invitation-state']).toBeUndefined();
    await accept({ token: res.body.token, password: 'long enough' }).expect(410);
    admin.cookie = await members.login(admin.email); // the 7-day session ended with the clock too
  });

  it('the minute purge keeps an expired invitation 30 days, so its link still says expired to a late invitee', async () => {
    const res = await invite({ email: 'later@example.com' }).expect(201);
    const verify = () => relay.http().get(`/api/v1/invitations/verify?token=${res.body.token}`).expect(410);
    const { ScheduledPurgesService } = await import('../../src/maintenance/scheduled-purges.service');
    const purge = () => relay.app.get(ScheduledPurgesService).runAll();
    relay.clock.advance(8 * DAY_MS);
    await purge();
    expect((await verify()).headers['x-invitation-state']).toBe('expired');
    relay.clock.advance(28 * DAY_MS); // 29 days past its expiry
    await purge();
    expect((await verify()).headers['x-invitation-state']).toBe('expired');
    relay.clock.advance(2 * DAY_MS);
    await purge();
    expect((await verify()).headers['x-invitation-state']).toBeUndefined();
    admin.cookie = await members.login(admin.email);
  });

  it('verify: missing token 400, unknown or malformed 410', async () => {
    expect((await relay.http().get('/api/v1/invitations/verify').expect(400)).body).toEqual({ error: 'token is required' });
    await relay.http().get(`/api/v1/invitations/verify?token=${'a'.repeat(64)}`).expect(410);
    await relay.http().get('/api/v1/invitations/verify?token=../../etc').expect(410);
  });

  it('accept validates the form (400) before anything is used', async () => {
    const res = await invite({ email: 'form@example.com' }).expect(201);
    const token = res.body.token;
    expect((await accept({ token, password: 'short77' }).expect(400)).body.error).toMatch(/at least 8/);
    expect((await accept({ password: 'long enough' }).expect(400)).body).toEqual({ error: 'token is required' });
    await relay.http().post('/api/v1/invitations/accept').send({ token, password: 'long enough' }).expect(400);
    await accept({ token, password: '12345678' }).expect(200);
  });

  it('accept: 409 when the invitation e-mail got an account meanwhile; the account is unchanged', async () => {
    const res = await invite({ email: 'taken@example.com' }).expect(201);
    await members.member('Viewer', 'taken@example.com');
    expect((await accept({ token: res.body.token, password: 'hijack attempt' }).expect(409)).body.error).toMatch(/already exists/);
    await members.login('taken@example.com');
    await relay.http().post('/api/v1/auth/login').send({ email: 'taken@example.com', password: 'hijack attempt' }).expect(401);
  });

  it('an invitation without e-mail sends none, and needs `email` on accept (400 without, 409 when taken)', async () => {
    const res = await invite({ role: 'Viewer' }).expect(201);
    expect(res.body.emailSent).toBe(false);
    const token = res.body.token;
    expect((await accept({ token, password: 'long enough' }).expect(400)).body.error).toMatch(/email is required/);
    await accept({ token, password: 'long enough', email: 'nope' }).expect(400);
    await accept({ token, password: 'long enough', email: 'Admin@Example.com' }).expect(409);
    await accept({ token, password: 'long enough', email: ' Self.Chosen@Example.com ' }).expect(200);
    await members.login('self.chosen@example.com', 'long enough');
  });

  it('the accept form `email` is ignored when the invitation has one', async () => {
    const res = await invite({ email: 'fixed@example.com' }).expect(201);
    await accept({ token: res.body.token, password: 'long enough', email: 'other@example.com' }).expect(200);
    await members.login('fixed@example.com', 'long enough');
    await relay.http().post('/api/v1/auth/login').send({ email: 'other@example.com', password: 'long enough' }).expect(401);
  });

  it('parallel accepts of one token: exactly one 200, one account', async () => {
    const res = await invite({ email: 'race@example.com' }).expect(201);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => accept({ token: res.body.token, password: `password-${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 410 || s === 409)).toBe(true);
    const list = await members.as(admin, 'get', '/api/v1/team/members').expect(200);
    expect(list.body.filter((m: { email: string }) => m.email === 'race@example.com')).toHaveLength(1);
  });

  it('accept with an avatar stores it; a non-image avatar is 400 and uses nothing', async () => {
    const res = await invite({ email: 'pic@example.com' }).expect(201);
    await relay
      .http()
      .post('/api/v1/invitations/accept')
      .field('token', res.body.token)
      .field('password', 'long enough')
      .attach('avatar', images.html(), { filename: 'me.png', contentType: 'image/png' })
      .expect(400);
    await relay.http().get(`/api/v1/invitations/verify?token=${res.body.token}`).expect(200);
    const ok = await relay
      .http()
      .post('/api/v1/invitations/accept')
      .field('token', res.body.token)
      .field('password', 'long enough')
      .attach('avatar', images.jpeg(), { filename: 'me.png', contentType: 'image/png' })
      .expect(200);
    const cookie = sessionCookieFrom(ok.headers['set-cookie']);
    const me = await relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200);
    expect(me.body.avatarUrl).toMatch(/^\/uploads\/avatars\/[0-9a-f]{32}\.jpg$/);
    const file = await relay.http().get(me.body.avatarUrl).set('Cookie', cookie).expect(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
  });

  it('open invitations are listed to Admins (no token), newest first; revoking one makes its link 410', async () => {
    const first = await invite({ email: 'listed@example.com', role: 'Viewer' }).expect(201);
    const second = await invite({ role: 'Developer' }).expect(201);
    const list = await members.as(admin, 'get', '/api/v1/team/invitations').expect(200);
    const [newest, next] = list.body;
    expect(newest).toEqual({
      id: expect.any(Number),
      email: null,
      role: 'Developer',
      created_at: expect.stringMatching(/Z$/),
      expires_at: expect.stringMatching(/Z$/),
    });
    expect(next).toMatchObject({ email: 'listed@example.com', role: 'Viewer' });
    expect(Date.parse(newest.expires_at) - Date.parse(newest.created_at)).toBe(7 * DAY_MS);
    expect(JSON.stringify(list.body)).not.toContain(first.body.token);

    await members.as(admin, 'delete', `/api/v1/team/invitations/${next.id}`).expect(204);
    await relay.http().get(`/api/v1/invitations/verify?token=${first.body.token}`).expect(410);
    const again = await members.as(admin, 'delete', `/api/v1/team/invitations/${next.id}`).expect(404);
    expect(again.body).toEqual({ error: 'Invitation not found' });
    const after = await members.as(admin, 'get', '/api/v1/team/invitations').expect(200);
    expect(after.body.map((i: { id: number }) => i.id)).not.toContain(next.id);
    await relay.http().get(`/api/v1/invitations/verify?token=${second.body.token}`).expect(200);
  });

  it('accepted invitations leave the list and cannot be revoked (404); only Admins list or revoke', async () => {
    const res = await invite({ email: 'joined@example.com' }).expect(201);
    const before = await members.as(admin, 'get', '/api/v1/team/invitations').expect(200);
    const id = before.body.find((i: { email: string }) => i.email === 'joined@example.com').id;
    const developer = await members.member('Developer');
    await members.as(developer, 'get', '/api/v1/team/invitations').expect(403);
    await members.as(developer, 'delete', `/api/v1/team/invitations/${id}`).expect(403);
    await accept({ token: res.body.token, password: 'long enough' }).expect(200);
    const after = await members.as(admin, 'get', '/api/v1/team/invitations').expect(200);
    expect(after.body.map((i: { id: number }) => i.id)).not.toContain(id);
    await members.as(admin, 'delete', `/api/v1/team/invitations/${id}`).expect(404);
    await members.as(admin, 'delete', '/api/v1/team/invitations/x1').expect(400);
  });
});
