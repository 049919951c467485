import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { uploadTestBuild } from '../support/builds';
import { images, MB } from '../support/images';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('comments', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let buildId: number;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
    buildId = (await uploadTestBuild(members, admin)).id;
  });
  afterAll(() => relay.close());

  const post = (m: TestMember, fields: Record<string, string>) => {
    const req = members.as(m, 'post', '/api/v1/comments');
    for (const [k, v] of Object.entries(fields)) req.field(k, v);
    return req;
  };
  const list = async (m: TestMember, id = buildId) => (await members.as(m, 'get', `/api/v1/comments?build_id=${id}`).expect(200)).body;
  const attachmentFiles = () => relay.storedFiles('uploads/comments/');
  const stored = (key: string) => relay.storedFileExists(key);
  /** Posts a comment with a PNG; returns its id, the attachment's URL and its key in the store. */
  const postWithScreenshot = async (m: TestMember, id: number) => {
    const created = await members
      .as(m, 'post', '/api/v1/comments')
      .field('build_id', String(id))
      .field('body', 'with screenshot')
      .attach('attachment', images.png(), 'p.png')
      .expect(201);
    const url: string = (await list(m, id)).find((c: { id: number }) => c.id === created.body.id).attachments[0].file_path;
    return { id: created.body.id as number, url, file: url.replace(/^\//, '') };
  };

  it('every role posts, including Viewer; create answers { id, body, created_at, author } with the stored display name', async () => {
    const viewer = await members.member('Viewer', 'vera.viewer@example.com');
    const res = await post(viewer, { build_id: String(buildId), body: '  Looks good  ' }).expect(201);
    expect(res.body).toEqual({ id: expect.any(Number), body: 'Looks good', created_at: expect.stringMatching(/\.\d{3}Z$/), author: null });

    await members.as(viewer, 'patch', '/api/v1/profile').field('display_name', 'Vera').expect(200);
    const named = await post(viewer, { build_id: String(buildId), body: 'Second' }).expect(201);
    expect(named.body.author).toBe('Vera');
    for (const role of ['Developer', 'QA'] as const) {
      await post(await members.member(role), { build_id: String(buildId), body: `from ${role}` }).expect(201);
    }
  });

  it('lists in the spec shape: author falls back to the e-mail local part, authorAvatarUrl, attachments', async () => {
    const qa = await members.member('QA', 'sam.tester@example.com');
    await members.as(qa, 'patch', '/api/v1/profile').attach('avatar', images.png(), 'a.png').expect(200);
    const created = await members
      .as(qa, 'post', '/api/v1/comments')
      .field('build_id', String(buildId))
      .field('body', 'Crash on launch, see screenshot')
      .attach('attachment', images.webp(), { filename: 'shot.png', contentType: 'image/png' })
      .expect(201);
    expect(created.body.author).toBeNull();
    const item = (await list(qa)).find((c: { id: number }) => c.id === created.body.id);
    expect(item).toEqual({
      id: created.body.id,
      body: 'Crash on launch, see screenshot',
      created_at: created.body.created_at,
      author: 'sam.tester',
      author_id: qa.id,
      authorAvatarUrl: expect.stringMatching(/^\/uploads\/avatars\/[0-9a-f]{32}\.png$/),
      attachments: [{ id: expect.any(Number), file_path: expect.stringMatching(/^\/uploads\/comments\/[0-9a-f]{32}\.webp$/), mime: 'image/webp' }],
    });
    const file = await members.as(qa, 'get', item.attachments[0].file_path).expect(200);
    expect(file.headers['content-type']).toBe('image/webp');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    const noAvatar = (await list(qa)).find((c: { author: string }) => c.author === 'Vera');
    expect(noAvatar.authorAvatarUrl).toBeNull();
    expect(noAvatar.attachments).toEqual([]);
  });

  it('POST with a PAT needs builds:write; GET and DELETE take no PAT', async () => {
    const dev = await members.member('Developer');
    const write = await members.pat(dev, 'builds:write');
    const view = await members.pat(dev, 'view');
    const viaPat = await members.withPat(write, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'from CI').expect(201);
    await members.withPat(view, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'x').expect(403);
    await members.withPat(write, 'get', `/api/v1/comments?build_id=${buildId}`).expect(401);
    await members.withPat(write, 'delete', `/api/v1/comments/${viaPat.body.id}`).expect(401);
    await relay.http().get(`/api/v1/comments?build_id=${buildId}`).expect(401);
    await relay.http().post('/api/v1/comments').field('build_id', String(buildId)).field('body', 'x').expect(401);
    const viewerPat = await members.pat(await members.member('Viewer'), 'builds:write');
    await members.withPat(viewerPat, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'viewer CI').expect(201);
  });

  it('validates: build_id and body (400), unknown build (404), attachment type (400) and size (413)', async () => {
    const dev = await members.member('Developer');
    expect((await post(dev, { body: 'x' }).expect(400)).body.error).toMatch(/build_id/);
    await post(dev, { build_id: 'abc', body: 'x' }).expect(400);
    expect((await post(dev, { build_id: String(buildId), body: '   ' }).expect(400)).body).toEqual({ error: 'body is required' });
    expect((await post(dev, { build_id: '99999', body: 'x' }).expect(404)).body).toEqual({ error: 'Build not found' });
    await members.as(dev, 'get', '/api/v1/comments').expect(400);
    await members.as(dev, 'get', '/api/v1/comments?build_id=x').expect(400);
    await members.as(dev, 'get', '/api/v1/comments?build_id=99999').expect(404);
    const before = (await attachmentFiles()).length;
    for (const bytes of [images.html(), images.svg(), images.gif()]) {
      const res = await members
        .as(dev, 'post', '/api/v1/comments')
        .field('build_id', String(buildId))
        .field('body', 'x')
        .attach('attachment', bytes, { filename: 'x.png', contentType: 'image/png' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/PNG, JPEG or WebP/);
    }
    await members.as(dev, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'big').attach('attachment', images.jpeg(5 * MB), 'ok.jpg').expect(201);
    await members.as(dev, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'x').attach('attachment', images.jpeg(5 * MB + 1), 'x.jpg').expect(413);
    // An unknown build with an image: 404, and the image it stored before the insert's foreign key refused is gone.
    const unknown = await members.as(dev, 'post', '/api/v1/comments').field('build_id', '99999').field('body', 'x').attach('attachment', images.jpeg(1000), 'x.jpg').expect(404);
    expect(unknown.body).toEqual({ error: 'Build not found' });
    expect((await attachmentFiles()).length).toBe(before + 1);
    expect(readdirSync(join(relay.dataDir, 'tmp')).filter((f) => f.startsWith('upload-'))).toEqual([]);
  });

  it('DELETE: author 204, another member 403, Admin 204, missing 404; the attachment file goes too', async () => {
    const author = await members.member('QA');
    const other = await members.member('Developer');
    const created = await postWithScreenshot(author, buildId);
    expect((await members.as(other, 'delete', `/api/v1/comments/${created.id}`).expect(403)).body.error).toMatch(/author or an Admin/);
    const res = await members.as(author, 'delete', `/api/v1/comments/${created.id}`).expect(204);
    expect(res.text).toBe('');
    expect(await stored(created.file)).toBe(false);
    await members.as(author, 'get', created.url).expect(404);
    await members.as(author, 'delete', `/api/v1/comments/${created.id}`).expect(404);

    const second = await post(author, { build_id: String(buildId), body: 'admin removes this' }).expect(201);
    await members.as(admin, 'delete', `/api/v1/comments/${second.body.id}`).expect(204);
  });

  it("a deleted member's comments stay, with their name (display name or e-mail local part); only an Admin may delete them", async () => {
    const leaver = await members.member('Developer', 'leaving.person@example.com');
    const plain = await post(leaver, { build_id: String(buildId), body: 'before leaving' }).expect(201);
    await members.as(leaver, 'patch', '/api/v1/profile').field('display_name', 'Lee').expect(200);
    const named = await post(leaver, { build_id: String(buildId), body: 'signed Lee' }).expect(201);
    await members.as(admin, 'delete', `/api/v1/team/members/${leaver.id}`).expect(204);
    const items = await list(admin);
    expect(items.find((c: { id: number }) => c.id === plain.body.id)).toEqual(
      expect.objectContaining({ author: 'leaving.person', author_id: null, authorAvatarUrl: null }),
    );
    expect(items.find((c: { id: number }) => c.id === named.body.id)).toEqual(expect.objectContaining({ author: 'Lee' }));
    await members.as(await members.member('QA'), 'delete', `/api/v1/comments/${plain.body.id}`).expect(403);
    await members.as(admin, 'delete', `/api/v1/comments/${plain.body.id}`).expect(204);
  });

  it("a build purged after its schedule takes its comments' attachment files along; other builds' stay", async () => {
    const build = await uploadTestBuild(members, admin);
    const doomed = (await postWithScreenshot(admin, build.id)).file;
    const kept = (await postWithScreenshot(admin, buildId)).file;

    await members.as(admin, 'post', `/api/v1/builds/${build.id}/schedule-deletion`).expect(200);
    relay.clock.advance(8 * 24 * 3600 * 1000);
    admin.cookie = await members.login(admin.email);
    await relay.app.get(ScheduledPurgesService).runAll();
    await waitFor(async () => !(await stored(doomed)));
    await members.as(admin, 'get', `/api/v1/comments?build_id=${build.id}`).expect(404);
    expect(await stored(kept)).toBe(true);
  });

  it("deleting an app removes its builds' comments and their attachment files", async () => {
    const { appId } = await uploadTestBuild(members, admin);
    const { file } = await postWithScreenshot(admin, buildId);
    await members.as(admin, 'delete', `/api/v1/apps/${appId}`).expect(200);
    await waitFor(async () => !(await stored(file)));
    await members.as(admin, 'get', `/api/v1/comments?build_id=${buildId}`).expect(404);
  });

  it('the scheduled sweep removes unreferenced attachment files older than the grace period, keeps young and referenced ones', async () => {
    const build = await uploadTestBuild(members, admin);
    const referenced = (await postWithScreenshot(admin, build.id)).file;
    const oldOrphan = `uploads/comments/${'a'.repeat(32)}.png`;
    const youngOrphan = `uploads/comments/${'b'.repeat(32)}.png`;
    await relay.plantStoredFile(oldOrphan, images.png(), 3600_000);
    await relay.plantStoredFile(youngOrphan, images.png());
    await relay.app.get(ScheduledPurgesService).sweepOrphanUploads();
    expect(await stored(oldOrphan)).toBe(false);
    expect(await stored(youngOrphan)).toBe(true);
    expect(await stored(referenced)).toBe(true);
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
