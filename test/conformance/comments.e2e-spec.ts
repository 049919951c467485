import type { TestMember } from '../support/factory';
import { uploadTestBuild } from '../support/builds';
import { images } from '../support/images';
import { useTestRelay } from '../support/use-relay';
import { COMMENT_CREATED_SHAPE, COMMENT_LIST_SHAPE, expectError, expectNoContent, expectShape } from './support';

describe('conformance: §4 Comments, §5.7', () => {
  const ctx = useTestRelay();
  let admin: TestMember;
  let dev: TestMember;
  let viewer: TestMember;
  let buildId: number;

  beforeAll(async () => {
    admin = await ctx.members.admin();
    dev = await ctx.members.member('Developer', 'dev.person@example.com');
    viewer = await ctx.members.member('Viewer');
    buildId = (await uploadTestBuild(ctx.members, dev)).id;
  });

  const post = (member: TestMember, body: string) =>
    ctx.members.as(member, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', body);
  const listing = async () => (await ctx.members.as(viewer, 'get', `/api/v1/comments?build_id=${buildId}`).expect(200)).body;

  it('POST: 201 { id, body, created_at, author } with author null when no display name; list author = e-mail local part', async () => {
    const res = await post(dev, 'first');
    expect(res.status).toBe(201);
    expectShape(res.body, COMMENT_CREATED_SHAPE);
    expect(res.body).toMatchObject({ body: 'first', author: null });
    const item = (await listing()).find((c: { id: number }) => c.id === res.body.id);
    expectShape(item, COMMENT_LIST_SHAPE);
    expect(item).toMatchObject({ author: 'dev.person', authorAvatarUrl: null, attachments: [] });
  });

  it('with a display name and avatar: create author = display name; list has authorAvatarUrl and attachments', async () => {
    await ctx.members
      .as(dev, 'patch', '/api/v1/profile')
      .field('display_name', 'Dev Person')
      .attach('avatar', images.png(), 'me.png')
      .expect(200);
    const res = await post(dev, 'with picture').attach('attachment', images.webp(), 'shot.webp').expect(201);
    expectShape(res.body, COMMENT_CREATED_SHAPE);
    expect(res.body.author).toBe('Dev Person');
    const item = (await listing()).find((c: { id: number }) => c.id === res.body.id);
    expectShape(item, COMMENT_LIST_SHAPE);
    expect(item.author).toBe('Dev Person');
    expect(item.authorAvatarUrl).toMatch(/^\/uploads\/avatars\/[^/]+$/);
    expect(item.attachments).toEqual([{ id: expect.any(Number), file_path: expect.stringMatching(/^\/uploads\/comments\//), mime: 'image/webp' }]);
    await ctx.members.as(viewer, 'get', item.attachments[0].file_path).expect(200);
  });

  it('GET: 200 array; build_id required (400); unknown build 404 `Build not found`', async () => {
    expect(Array.isArray(await listing())).toBe(true);
    expectError(await ctx.members.as(viewer, 'get', '/api/v1/comments'), 400);
    expectError(await ctx.members.as(viewer, 'get', '/api/v1/comments?build_id=999999'), 404, 'Build not found');
  });

  it('every role incl. Viewer may post, with cookie or PAT(builds:write); missing body/build_id 400; GIF attachment 400', async () => {
    await post(viewer, 'viewer says').expect(201);
    const pat = await ctx.members.pat(viewer, 'builds:write');
    const res = await ctx.members.withPat(pat, 'post', '/api/v1/comments').field('build_id', String(buildId)).field('body', 'via pat');
    expect(res.status).toBe(201);
    expectShape(res.body, COMMENT_CREATED_SHAPE);
    expectError(await ctx.members.as(viewer, 'post', '/api/v1/comments').field('build_id', String(buildId)), 400);
    expectError(await ctx.members.as(viewer, 'post', '/api/v1/comments').field('body', 'x'), 400);
    expectError(await post(viewer, 'gif').attach('attachment', images.gif(), 'a.gif'), 400);
    expectError(
      await ctx.members.as(viewer, 'post', '/api/v1/comments').field('build_id', '999999').field('body', 'x'),
      404,
      'Build not found',
    );
  });

  it('DELETE: the author or an Admin, 204 with no body; anyone else 403', async () => {
    const mine = (await post(viewer, 'delete me').expect(201)).body.id;
    const devs = (await post(dev, 'admin deletes').expect(201)).body.id;
    expectError(await ctx.members.as(viewer, 'delete', `/api/v1/comments/${devs}`), 403);
    expectNoContent(await ctx.members.as(viewer, 'delete', `/api/v1/comments/${mine}`));
    expectNoContent(await ctx.members.as(admin, 'delete', `/api/v1/comments/${devs}`));
    expectError(await ctx.members.as(admin, 'delete', `/api/v1/comments/${devs}`), 404);
  });
});
