/**
 * RESTler's checkers as black-box cases (security.md §8): UseAfterFree, NameSpaceRule,
 * LeakageRule (a failed create leaves no row and no file) and malformed multipart bodies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { images, MB } from '../support/images';
import { uploadTestBuild } from '../support/builds';
import { useTestRelay } from '../support/use-relay';
import { contractBreach, eventually, filesUnder, multipartBody, send, storedFiles } from './support/http';

const WEBM = readFileSync(join(__dirname, '..', 'fixtures', 'recordings', 'two-seconds.webm'));

describe('RESTler-style checks', () => {
  const ctx = useTestRelay({ SVC_MAX_BUILD_BYTES: '200000' });
  let admin: TestMember;
  let dev: TestMember;

  beforeAll(async () => {
    admin = await ctx.members.admin();
    dev = await ctx.members.member('Developer');
  });

  const api = (m: TestMember, method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    ctx.members.as(m, method, `/api/v1${path}`);

  describe('UseAfterFree: a deleted object is 404 (or its credential 401) everywhere afterwards', () => {
    it('app (with its build and comments)', async () => {
      const build = await uploadTestBuild(ctx.members, dev);
      const comment = await api(dev, 'post', '/comments').field('build_id', String(build.id)).field('body', 'x').expect(201);
      await api(dev, 'delete', `/apps/${build.appId}`).expect(200);
      await api(dev, 'patch', `/apps/${build.appId}`).send({ name: 'again' }).expect(404);
      await api(dev, 'delete', `/apps/${build.appId}`).expect(404);
      await api(dev, 'get', `/builds/${build.id}`).expect(404);
      await api(dev, 'get', `/builds/${build.id}/download`).expect(404);
      await api(dev, 'patch', `/builds/${build.id}`).send({ status_label: 'Done' }).expect(404);
      await api(dev, 'post', `/builds/${build.id}/schedule-deletion`).expect(404);
      await api(dev, 'get', `/comments?build_id=${build.id}`).expect(404);
      await api(dev, 'post', '/comments').field('build_id', String(build.id)).field('body', 'late').expect(404);
      await api(dev, 'delete', `/comments/${comment.body.id}`).expect(404);
      await api(dev, 'post', '/builds')
        .field('app_id', String(build.appId))
        .attach('file', readFileSync(fixture('string-label.apk')), 'a.apk')
        .expect(404);
    });

    it('comment', async () => {
      const build = await uploadTestBuild(ctx.members, dev);
      const c = await api(dev, 'post', '/comments').field('build_id', String(build.id)).field('body', 'bye').expect(201);
      await api(dev, 'delete', `/comments/${c.body.id}`).expect(204);
      await api(dev, 'delete', `/comments/${c.body.id}`).expect(404);
      await api(admin, 'delete', `/comments/${c.body.id}`).expect(404);
      const list = await api(dev, 'get', `/comments?build_id=${build.id}`).expect(200);
      expect(list.body.map((x: { id: number }) => x.id)).not.toContain(c.body.id);
    });

    it('token', async () => {
      const pat = await ctx.members.pat(dev, 'view,builds:write');
      const id = (await api(dev, 'get', '/tokens').expect(200)).body.at(-1).id;
      await ctx.members.withPat(pat, 'get', '/api/v1/builds').expect(200);
      await api(dev, 'delete', `/tokens/${id}`).expect(204);
      await ctx.members.withPat(pat, 'get', '/api/v1/builds').expect(401);
      await ctx.members.withPat(pat, 'get', '/api/v1/apps').expect(401);
      await api(dev, 'delete', `/tokens/${id}`).expect(404);
    });

    it('webhook', async () => {
      const hook = await api(dev, 'post', '/webhooks').send({ url: 'http://10.231.0.9:9/hook' }).expect(201);
      await api(dev, 'delete', `/webhooks/${hook.body.id}`).expect(200);
      await api(dev, 'patch', `/webhooks/${hook.body.id}`).send({ enabled: false }).expect(404);
      await api(dev, 'delete', `/webhooks/${hook.body.id}`).expect(404);
      await api(dev, 'get', `/webhooks/${hook.body.id}/deliveries`).expect(404);
    });

    it('member: their cookie and PAT are 401, and every team route on them is 404', async () => {
      const gone = await ctx.members.member('QA');
      const pat = await ctx.members.pat(gone, 'view,builds:write');
      await api(admin, 'delete', `/team/members/${gone.id}`).expect(204);
      await api(gone, 'get', '/auth/me').expect(401);
      await ctx.members.withPat(pat, 'get', '/api/v1/builds').expect(401);
      await api(admin, 'delete', `/team/members/${gone.id}`).expect(404);
      await api(admin, 'patch', `/team/members/${gone.id}`).send({ role: 'Developer' }).expect(404);
      await api(admin, 'post', `/team/members/${gone.id}/send-reset`).expect(404);
    });
  });

  describe('NameSpaceRule: member B never reaches member A\'s objects', () => {
    it("B neither lists nor revokes A's tokens (404), and A's PAT keeps working", async () => {
      const a = await ctx.members.member('Developer');
      const b = await ctx.members.member('Developer');
      const pat = await ctx.members.pat(a, 'view');
      const aTokens = (await api(a, 'get', '/tokens').expect(200)).body;
      const bTokens = (await api(b, 'get', '/tokens').expect(200)).body;
      expect(bTokens.map((t: { id: number }) => t.id)).not.toContain(aTokens[0].id);
      await api(b, 'delete', `/tokens/${aTokens[0].id}`).expect(404);
      await ctx.members.withPat(pat, 'get', '/api/v1/apps').expect(200);
    });

    it("B (not an Admin) cannot delete A's comment (403) and it stays listed", async () => {
      const a = await ctx.members.member('QA');
      const b = await ctx.members.member('Developer');
      const build = await uploadTestBuild(ctx.members, dev);
      const c = await api(a, 'post', '/comments').field('build_id', String(build.id)).field('body', 'mine').expect(201);
      const res = await api(b, 'delete', `/comments/${c.body.id}`).expect(403);
      expect(Object.keys(res.body)).toEqual(['error']);
      const list = await api(b, 'get', `/comments?build_id=${build.id}`).expect(200);
      expect(list.body.map((x: { id: number }) => x.id)).toContain(c.body.id);
    });
  });

  describe('LeakageRule: a failed create leaves no row and no file', () => {
    interface Counts {
      builds: number;
      apps: number;
      members: number;
      recordings: number;
      comments: number;
      files: string[];
    }
    let buildId: number;
    beforeAll(async () => {
      buildId = (await uploadTestBuild(ctx.members, dev)).id;
    });
    const counts = async (): Promise<Counts> => ({
      builds: (await api(admin, 'get', '/builds?limit=1').expect(200)).body.total,
      apps: (await api(admin, 'get', '/apps').expect(200)).body.items.length,
      members: (await api(admin, 'get', '/team/members').expect(200)).body.length,
      recordings: (await api(admin, 'get', '/recordings').expect(200)).body.length,
      comments: (await api(admin, 'get', `/comments?build_id=${buildId}`).expect(200)).body.length,
      files: await storedFiles(ctx.relay),
    });
    const expectNothingLeft = async (before: Counts) => {
      // Temp files are removed as the error is answered; give a failed stream a moment to close.
      await eventually(() => filesUnder(join(ctx.relay.dataDir, 'tmp')).length === 0);
      expect(await counts()).toEqual(before);
    };
    const expectError = (res: { status: number; body: unknown }, status: number | number[]) => {
      expect([status].flat()).toContain(res.status);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    };

    it('builds: garbage, wrong types, too large, platform mismatch, unknown app, Viewer', async () => {
      const viewer = await ctx.members.member('Viewer');
      const before = await counts();
      const up = (m: TestMember) => api(m, 'post', '/builds');
      expectError(await up(dev).attach('file', Buffer.from('not a zip at all'), 'x.apk'), 400);
      expectError(await up(dev).attach('file', readFileSync(fixture('app.ipa')), 'app.ipa'), 400);
      expectError(await up(dev).attach('file', readFileSync(fixture('truncated.app.zip')), 'truncated.app.zip'), 400);
      expectError(await up(dev).attach('file', readFileSync(fixture('bomb.app.zip')), 'bomb.app.zip'), 400);
      expectError(await up(dev).attach('file', Buffer.alloc(300_000, 1), 'big.apk'), 413);
      expectError(await up(dev).field('platform', 'ios').attach('file', readFileSync(fixture('string-label.apk')), 'a.apk'), 400);
      expectError(await up(dev).field('app_id', '987654').attach('file', readFileSync(fixture('string-label.apk')), 'a.apk'), 404);
      expectError(await up(dev).field('status', 'Shipped').attach('file', readFileSync(fixture('string-label.apk')), 'a.apk'), 400);
      expectError(await up(viewer).attach('file', readFileSync(fixture('string-label.apk')), 'a.apk'), 403);
      expectError(await up(dev).field('label', 'no file'), 400);
      await expectNothingLeft(before);
    });

    it('comments with attachments: bad image, unknown build, empty body, too large', async () => {
      const before = await counts();
      const post = () => api(dev, 'post', '/comments');
      expectError(await post().field('build_id', String(buildId)).field('body', 'x').attach('attachment', images.gif(), 'a.png'), 400);
      expectError(await post().field('build_id', String(buildId)).field('body', 'x').attach('attachment', images.svg(), 'a.png'), 400);
      expectError(await post().field('build_id', '987654').field('body', 'x').attach('attachment', images.png(), 'a.png'), 404);
      expectError(await post().field('build_id', String(buildId)).field('body', '   ').attach('attachment', images.png(), 'a.png'), 400);
      expectError(await post().field('build_id', 'abc').field('body', 'x').attach('attachment', images.png(), 'a.png'), 400);
      expectError(await post().field('build_id', String(buildId)).field('body', 'x').attach('attachment', images.png(5 * MB + 1), 'a.png'), 413);
      await expectNothingLeft(before);
    });

    it('avatars and logos: wrong type, too large, too-long name, non-Admin logo', async () => {
      const before = await counts();
      expectError(await api(dev, 'patch', '/profile').attach('avatar', images.webp(), 'a.png'), 400);
      expectError(await api(dev, 'patch', '/profile').attach('avatar', images.html(), 'a.png'), 400);
      expectError(await api(dev, 'patch', '/profile').attach('avatar', images.png(2 * MB + 1), 'a.png'), 413);
      expectError(await api(dev, 'patch', '/profile').field('display_name', 'x'.repeat(5000)).attach('avatar', images.png(), 'a.png'), 400);
      expectError(await api(admin, 'patch', '/settings').attach('logo', images.gif(), 'l.png'), 400);
      expectError(await api(admin, 'patch', '/settings').field('team_name', ' ').attach('logo', images.png(), 'l.png'), 400);
      expectError(await api(dev, 'patch', '/settings').attach('logo', images.png(), 'l.png'), 403);
      await expectNothingLeft(before);
    });

    it('recordings: no file, not a video, bad query', async () => {
      const before = await counts();
      const up = (query = '') => api(dev, 'post', `/recordings/upload${query}`);
      expectError(await up().field('sessionId', 'x'), 400);
      expectError(await up().attach('video', images.png(), 'x.webm'), 400);
      expectError(await up('?buildId=abc').attach('video', WEBM, 'x.webm'), 400);
      expectError(await up(`?sessionId=${'s'.repeat(500)}`).attach('video', WEBM, 'x.webm'), 400);
      await expectNothingLeft(before);
    });

    it('invitation accept with a bad avatar: 400, no member, the invitation still usable', async () => {
      const invite = await api(admin, 'post', '/team/invite').send({ email: 'newbie@example.com', role: 'QA' }).expect(201);
      const before = await counts();
      const accept = () => ctx.relay.http().post('/api/v1/invitations/accept').field('token', invite.body.token).field('password', 'long enough pw');
      expectError(await accept().attach('avatar', images.svg(), 'a.png'), 400);
      expectError(await accept().attach('avatar', images.png(2 * MB + 1), 'a.png'), 413);
      await expectNothingLeft(before);
      await ctx.relay.http().get(`/api/v1/invitations/verify?token=${invite.body.token}`).expect(200);
    });
  });

  describe('malformed multipart bodies → 4xx { error }, no temp file left in <data>/tmp', () => {
    const endpoints = ['/api/v1/builds', '/api/v1/comments', '/api/v1/recordings/upload', '/api/v1/profile'];
    const B = 'relayboundary42';
    const apk = () => readFileSync(fixture('string-label.apk'));
    const cases: Record<string, { type: string; body: () => Buffer }> = {
      'truncated (no closing boundary)': {
        type: `multipart/form-data; boundary=${B}`,
        body: () => multipartBody(B, [{ name: 'file', value: apk().subarray(0, 500), filename: 'a.apk' }], false),
      },
      'missing boundary parameter': { type: 'multipart/form-data', body: () => multipartBody(B, [{ name: 'body', value: 'x' }]) },
      'boundary that never appears': { type: 'multipart/form-data; boundary=other', body: () => multipartBody(B, [{ name: 'body', value: 'x' }]) },
      'empty body': { type: `multipart/form-data; boundary=${B}`, body: () => Buffer.alloc(0) },
      'garbage body': { type: `multipart/form-data; boundary=${B}`, body: () => Buffer.from('\u0000\u0001garbage\r\n\r\n--') },
      'duplicated file fields': {
        type: `multipart/form-data; boundary=${B}`,
        body: () =>
          multipartBody(B, [
            { name: 'file', value: Buffer.from('one'), filename: 'a.apk' },
            { name: 'file', value: Buffer.from('two'), filename: 'b.apk' },
            { name: 'attachment', value: images.gif(), filename: 'a.png' },
            { name: 'attachment', value: images.gif(), filename: 'b.png' },
            { name: 'avatar', value: images.svg(), filename: 'a.png' },
            { name: 'avatar', value: images.svg(), filename: 'b.png' },
          ]),
      },
      '1000 tiny fields': {
        type: `multipart/form-data; boundary=${B}`,
        body: () => multipartBody(B, Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, value: 'x' }))),
      },
      'a field name with CRLF': {
        type: `multipart/form-data; boundary=${B}`,
        body: () => Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="bo\r\ndy"\r\n\r\nx\r\n--${B}--\r\n`),
      },
      'a part without Content-Disposition': {
        type: `multipart/form-data; boundary=${B}`,
        body: () => Buffer.from(`--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${B}--\r\n`),
      },
      '80 KB part header': {
        type: `multipart/form-data; boundary=${B}`,
        body: () => Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="body"\r\nX-Pad: ${'p'.repeat(80 * 1024)}\r\n\r\nx\r\n--${B}--\r\n`),
      },
    };

    it.each(Object.keys(cases))('%s', async (name) => {
      const tmp = join(ctx.relay.dataDir, 'tmp');
      for (const path of endpoints) {
        const res = await send(ctx.relay.url, {
          method: path.endsWith('profile') ? 'PATCH' : 'POST',
          path,
          headers: { cookie: dev.cookie, 'content-type': cases[name].type },
          body: cases[name].body(),
        });
        expect(contractBreach(res, `${name} → ${path}`)).toBeNull();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
      expect(await eventually(() => filesUnder(tmp).length === 0)).toBe(true);
      await ctx.relay.http().get('/api/v1/auth/status').expect(200);
    });
  });
});
