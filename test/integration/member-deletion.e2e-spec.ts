import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, sessionCookieFrom, TestMember } from '../support/factory';
import { images } from '../support/images';
import { startTestRelay, TestRelay } from '../support/test-relay';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));

/**
 * DELETE /team/members/:id across every feature the member touched: their sign-ins and tokens end,
 * their avatar file goes, and what they contributed to the team (builds, comments with attachments,
 * recordings) stays, comments under the name they had.
 */
describe('deleting a member, across features', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let leaver: TestMember;
  let otherBrowser: string;
  let pat: string;
  let avatarUrl: string;
  const uploaded: number[] = [];
  let commentId: number;
  let recordingUrl: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    leaver = await members.member('Developer', 'dana.leaver@example.com');
    otherBrowser = await members.login(leaver.email);
    pat = await members.pat(leaver);

    await members.as(leaver, 'patch', '/api/v1/profile').field('display_name', 'Dana').attach('avatar', images.png(), 'me.png').expect(200);
    avatarUrl = (await members.as(leaver, 'get', '/api/v1/auth/me').expect(200)).body.avatarUrl;
    uploaded.push((await attachBuild(members.as(leaver, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body.id);
    uploaded.push((await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'literal-label.apk').expect(201)).body.id);
    commentId = (
      await members
        .withPat(pat, 'post', '/api/v1/comments')
        .field('build_id', String(uploaded[0]))
        .field('body', 'Found a crash')
        .attach('attachment', images.png(), 'crash.png')
        .expect(201)
    ).body.id;
    recordingUrl = (await members.as(leaver, 'post', `/api/v1/recordings/upload?buildId=${uploaded[0]}`).attach('v', WEBM, 'r.webm').expect(200)).body.url;

    await members.as(admin, 'delete', `/api/v1/team/members/${leaver.id}`).expect(204);
  });
  afterAll(() => relay.close());

  it('ends every session and PAT of the member: cookies, tokens and the password are refused with 401', async () => {
    await members.as(leaver, 'get', '/api/v1/auth/me').expect(401);
    await relay.http().get('/api/v1/auth/me').set('Cookie', otherBrowser).expect(401);
    await members.withPat(pat, 'get', '/api/v1/builds').expect(401);
    await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk').expect(401);
    await members.withPat(pat, 'post', '/api/v1/comments').field('build_id', String(uploaded[0])).field('body', 'x').expect(401);
    await relay.http().post('/api/v1/auth/login').send({ email: leaver.email, password: leaver.password }).expect(401);
  });

  it("removes the member's avatar file from disk and from /uploads/", async () => {
    expect(avatarUrl).toMatch(/^\/uploads\/avatars\/[0-9a-f]{32}\.png$/);
    expect(existsSync(join(relay.dataDir, avatarUrl))).toBe(false);
    expect(readdirSync(join(relay.dataDir, 'uploads', 'avatars'))).toEqual([]);
    await members.as(admin, 'get', avatarUrl).expect(404);
  });

  it('keeps the builds the member uploaded (cookie or CI token), with their files', async () => {
    for (const id of uploaded) {
      await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200);
      await members.as(admin, 'get', `/api/v1/builds/${id}/download`).expect(200);
    }
    expect((await members.as(admin, 'get', '/api/v1/builds').expect(200)).body.total).toBe(2);
    expect(readdirSync(join(relay.dataDir, 'builds'))).toHaveLength(2);
  });

  it('keeps their comments under their name, without an avatar, with the attachment still served', async () => {
    const list = await members.as(admin, 'get', `/api/v1/comments?build_id=${uploaded[0]}`).expect(200);
    expect(list.body).toEqual([
      {
        id: commentId,
        body: 'Found a crash',
        created_at: expect.any(String),
        author: 'Dana',
        author_id: null,
        authorAvatarUrl: null,
        attachments: [expect.objectContaining({ mime: 'image/png' })],
      },
    ]);
    await members.as(admin, 'get', list.body[0].attachments[0].file_path).expect(200);
  });

  it('keeps their recordings until their own expiry', async () => {
    const list = await members.as(admin, 'get', `/api/v1/recordings?buildId=${uploaded[0]}`).expect(200);
    expect(list.body.map((r: { url: string }) => r.url)).toEqual([recordingUrl]);
    await members.as(admin, 'get', recordingUrl).expect(200);
  });

  it('a new member with the same e-mail is a new person: the old comment keeps the old name', async () => {
    const invite = await members.as(admin, 'post', '/api/v1/team/invite').send({ email: leaver.email, role: 'QA' }).expect(201);
    const accepted = await relay
      .http()
      .post('/api/v1/invitations/accept')
      .field('token', invite.body.token)
      .field('password', 'another password')
      .field('display_name', 'Somebody Else')
      .expect(200);
    const cookie = sessionCookieFrom(accepted.headers['set-cookie']);
    await relay.http().delete(`/api/v1/comments/${commentId}`).set('Cookie', cookie).expect(403); // not their comment
    const list = await members.as(admin, 'get', `/api/v1/comments?build_id=${uploaded[0]}`).expect(200);
    expect(list.body[0].author).toBe('Dana');
  });
});
