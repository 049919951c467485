import { attachBuild, EXPECTED } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { useTestRelay, withTestRelay } from '../support/use-relay';
import {
  APP_LIST_ITEM_SHAPE,
  BUILD_SHAPE,
  BUILD_SUMMARY_SHAPE,
  DAY,
  expectError,
  expectOk,
  expectShape,
  SQL_DATETIME,
} from './support';

describe('conformance: §4 Apps and Builds', () => {
  const ctx = useTestRelay({ SVC_BUILD_TTL_DAYS: '7' });
  let dev: TestMember;
  let viewer: TestMember;

  beforeAll(async () => {
    dev = await ctx.members.member('Developer');
    viewer = await ctx.members.member('Viewer');
  });

  const upload = (member: TestMember, name: string, fields: Record<string, string> = {}) =>
    attachBuild(ctx.members.as(member, 'post', '/api/v1/builds'), name, fields);

  describe('POST /builds', () => {
    it.each(['string-label.apk', 'xml-root.app.zip', 'binary-root.tar.gz', 'xml-nested.tgz'])(
      '%s: 201 with exactly the summary fields, platform derived from the file',
      async (name) => {
        const res = await upload(dev, name);
        expect(res.status).toBe(201);
        expectShape(res.body, BUILD_SUMMARY_SHAPE);
        const e = EXPECTED[name];
        expect(res.body).toMatchObject({
          name: e.name,
          bundle_id: e.bundle_id,
          version_name: e.version_name,
          build_number: e.build_number,
          platform: e.platform,
          status_label: null,
        });
      },
    );

    it('status given is stored; label becomes version_label', async () => {
      const res = await upload(dev, 'literal-label.apk', { status: 'In Progress', label: 'feature/x' }).expect(201);
      expect(res.body.status_label).toBe('In Progress');
      const build = await ctx.members.as(dev, 'get', `/api/v1/builds/${res.body.id}`).expect(200);
      expectShape(build.body, BUILD_SHAPE);
      expect(build.body).toMatchObject({ version_label: 'feature/x', status_label: 'In Progress', delete_after: null });
    });

    it('app_id attaches to an existing app explicitly', async () => {
      const created = await ctx.members
        .as(dev, 'post', '/api/v1/apps')
        .send({ name: 'Explicit', bundle_id_key: 'com.other.key', platform: 'both' })
        .expect(201);
      const res = await upload(dev, 'literal-label.apk', { app_id: String(created.body.id) }).expect(201);
      expect(res.body.app_id).toBe(created.body.id);
    });

    it('.ipa and .aab are rejected with 400; no file is 400 `file required`', async () => {
      expectError(await upload(dev, 'app.ipa'), 400);
      expectError(await upload(dev, 'app.aab'), 400);
      expectError(await ctx.members.as(dev, 'post', '/api/v1/builds').field('status', 'Done'), 400, 'file required');
    });

    it('a Viewer gets 403 `Viewers have read-only access` with the cookie or a PAT', async () => {
      expectError(await upload(viewer, 'string-label.apk'), 403, 'Viewers have read-only access');
      const pat = await ctx.members.pat(viewer, 'builds:write');
      const res = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk');
      expectError(res, 403, 'Viewers have read-only access');
    });

    it('PAT with builds:write uploads; view-only PAT gets 403 `Insufficient scope`; none 401', async () => {
      const write = await ctx.members.pat(dev, 'builds:write');
      await attachBuild(ctx.members.withPat(write, 'post', '/api/v1/builds'), 'string-label.apk').expect(201);
      const view = await ctx.members.pat(dev, 'view');
      expectError(await attachBuild(ctx.members.withPat(view, 'post', '/api/v1/builds'), 'string-label.apk'), 403, 'Insufficient scope');
      expectError(await attachBuild(ctx.relay.http().post('/api/v1/builds'), 'string-label.apk'), 401, 'Unauthorized');
    });
  });

  describe('GET /builds', () => {
    it('{ items: [Build], total }, default page 0 / limit 20, every item a full Build', async () => {
      for (let i = 0; i < 21; i++) await upload(dev, 'string-label.apk').expect(201);
      const res = await ctx.members.as(viewer, 'get', '/api/v1/builds').expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'total']);
      expect(typeof res.body.total).toBe('number');
      expect(res.body.items).toHaveLength(20);
      for (const item of res.body.items) expectShape(item, BUILD_SHAPE);
      const page1 = await ctx.members.as(viewer, 'get', '/api/v1/builds?page=1').expect(200);
      expect(page1.body.items.length).toBe(Math.min(20, res.body.total - 20));
      expect(page1.body.items[0].id).not.toBe(res.body.items[0].id);
      // default sort uploaded_at desc: newest first
      const times = res.body.items.map((b: { uploaded_at: string }) => b.uploaded_at);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('limit max 100; filters platform, status, app_id, q; sort and dir', async () => {
      const big = await ctx.members.as(dev, 'get', '/api/v1/builds?limit=1000').expect(200);
      expect(big.body.items.length).toBeLessThanOrEqual(100);
      const ios = await ctx.members.as(dev, 'get', '/api/v1/builds?platform=ios&limit=100').expect(200);
      expect(ios.body.items.length).toBeGreaterThan(0);
      expect(ios.body.items.every((b: { platform: string }) => b.platform === 'ios')).toBe(true);
      const inProgress = await ctx.members.as(dev, 'get', '/api/v1/builds?status=In%20Progress').expect(200);
      expect(inProgress.body.items.length).toBeGreaterThan(0);
      expect(inProgress.body.items.every((b: { status_label: string }) => b.status_label === 'In Progress')).toBe(true);
      const q = await ctx.members.as(dev, 'get', '/api/v1/builds?q=5.0.1').expect(200);
      expect(q.body.items.map((b: { version_name: string }) => b.version_name)).toEqual(['5.0.1']);
      const appId = q.body.items[0].app_id;
      const byApp = await ctx.members.as(dev, 'get', `/api/v1/builds?app_id=${appId}`).expect(200);
      expect(byApp.body.total).toBe(1);
      const asc = await ctx.members.as(dev, 'get', '/api/v1/builds?sort=version_name&dir=asc&limit=100').expect(200);
      const names = asc.body.items.map((b: { version_name: string }) => b.version_name);
      expect(names).toEqual([...names].sort());
      for (const bad of ['sort=name', 'dir=up', 'platform=web', 'status=Unknown', 'page=-1']) {
        expectError(await ctx.members.as(dev, 'get', `/api/v1/builds?${bad}`), 400);
      }
    });

    it('PAT: builds:write accepted, view-only 403 `Insufficient scope`', async () => {
      const write = await ctx.members.pat(viewer, 'builds:write');
      await ctx.members.withPat(write, 'get', '/api/v1/builds').expect(200);
      const view = await ctx.members.pat(viewer, 'view');
      expectError(await ctx.members.withPat(view, 'get', '/api/v1/builds'), 403, 'Insufficient scope');
      expectError(await ctx.members.withPat(view, 'get', '/api/v1/builds/1'), 403, 'Insufficient scope');
    });
  });

  describe('GET/PATCH /builds/:id and the deletion schedule', () => {
    it('GET unknown id: 404 `Build not found`', async () => {
      expectError(await ctx.members.as(dev, 'get', '/api/v1/builds/999999'), 404, 'Build not found');
    });

    it('PATCH: 200 { ok: true }; Done sets completed_at but not delete_after; null clears; Viewer 403', async () => {
      const { body } = await upload(dev, 'string-label.apk').expect(201);
      expectOk(await ctx.members.as(dev, 'patch', `/api/v1/builds/${body.id}`).send({ status_label: 'Done', version_label: 'rc1' }));
      let build = (await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}`).expect(200)).body;
      expectShape(build, BUILD_SHAPE);
      expect(build).toMatchObject({ status_label: 'Done', version_label: 'rc1', delete_after: null });
      expect(build.completed_at).not.toBeNull();
      expectOk(await ctx.members.as(dev, 'patch', `/api/v1/builds/${body.id}`).send({ status_label: null, version_label: null }));
      build = (await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}`).expect(200)).body;
      expect(build).toMatchObject({ status_label: null, version_label: null });
      expectError(
        await ctx.members.as(viewer, 'patch', `/api/v1/builds/${body.id}`).send({ status_label: 'Done' }),
        403,
        'Viewers have read-only access',
      );
      expectError(await ctx.members.as(dev, 'patch', `/api/v1/builds/${body.id}`).send({ status_label: 'Finished' }), 400);
      expectError(await ctx.members.as(dev, 'patch', '/api/v1/builds/999999').send({ status_label: 'Done' }), 404, 'Build not found');
    });

    it('schedule-deletion: 200 { ok, delete_after "YYYY-MM-DD HH:MM:SS" } = now + TTL days; cancel 200 { ok: true }', async () => {
      const { body } = await upload(dev, 'string-label.apk').expect(201);
      // now + 7 days, "now" being the relay clock between the request and its answer (to the second, as the format is).
      const before = Math.floor(ctx.relay.clock.nowMs() / 1000) * 1000;
      const res = await ctx.members.as(dev, 'post', `/api/v1/builds/${body.id}/schedule-deletion`).expect(200);
      const after = ctx.relay.clock.nowMs();
      expect(Object.keys(res.body).sort()).toEqual(['delete_after', 'ok']);
      expect(res.body.ok).toBe(true);
      expect(res.body.delete_after).toMatch(SQL_DATETIME);
      const at = Date.parse(res.body.delete_after.replace(' ', 'T') + 'Z');
      expect(at).toBeGreaterThanOrEqual(before + 7 * DAY);
      expect(at).toBeLessThanOrEqual(after + 7 * DAY);
      const build = (await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}`).expect(200)).body;
      expect(build.delete_after).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(build.status_label).toBeNull();
      expectError(await ctx.members.as(viewer, 'post', `/api/v1/builds/${body.id}/schedule-deletion`), 403, 'Viewers have read-only access');
      expectError(await ctx.members.as(viewer, 'delete', `/api/v1/builds/${body.id}/schedule-deletion`), 403, 'Viewers have read-only access');
      expectOk(await ctx.members.as(dev, 'delete', `/api/v1/builds/${body.id}/schedule-deletion`));
      expect((await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}`).expect(200)).body.delete_after).toBeNull();
    });
  });

  it('a build over SVC_MAX_BUILD_BYTES is refused with a JSON { error }', async () => {
    await withTestRelay({ SVC_MAX_BUILD_BYTES: '1024' }, async (_relay, members) => {
      const admin = await members.admin();
      const res = await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk');
      expectError(res, 413);
    });
  });

  describe('Apps', () => {
    it('GET /apps: { items } with the latest-build summary; PAT view accepted, builds:write-only 403', async () => {
      const res = await ctx.members.as(viewer, 'get', '/api/v1/apps').expect(200);
      expect(Object.keys(res.body)).toEqual(['items']);
      const withBuilds = res.body.items.filter((a: { latest_build_id: number | null }) => a.latest_build_id !== null);
      expect(withBuilds.length).toBeGreaterThan(0);
      for (const app of withBuilds) expectShape(app, APP_LIST_ITEM_SHAPE);
      const view = await ctx.members.pat(viewer, 'view');
      await ctx.members.withPat(view, 'get', '/api/v1/apps').expect(200);
      const write = await ctx.members.pat(viewer, 'builds:write');
      expectError(await ctx.members.withPat(write, 'get', '/api/v1/apps'), 403, 'Insufficient scope');
    });

    it('the summary is the latest build of the app', async () => {
      const { body: build } = await upload(dev, 'binary-nested.app.zip', { status: 'Rejected' }).expect(201);
      const res = await ctx.members.as(dev, 'get', '/api/v1/apps').expect(200);
      const app = res.body.items.find((a: { id: number }) => a.id === build.app_id);
      expect(app).toMatchObject({
        latest_build_id: build.id,
        version_name: build.version_name,
        build_number: build.build_number,
        status_label: 'Rejected',
        latest_uploaded_at: build.uploaded_at,
      });
    });

    it('POST 201 { id, ok: true }; PATCH 200 { ok: true }; DELETE 200 { ok: true } removes builds; Viewer 403', async () => {
      const created = await ctx.members
        .as(dev, 'post', '/api/v1/apps')
        .send({ name: 'Made', bundle_id_key: 'com.made', platform: 'android' });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(['id', 'ok']);
      expect(created.body).toEqual({ id: expect.any(Number), ok: true });
      expectOk(await ctx.members.as(dev, 'patch', `/api/v1/apps/${created.body.id}`).send({ name: 'Renamed' }));
      const { body: build } = await upload(dev, 'literal-label.apk', { app_id: String(created.body.id) }).expect(201);
      expect(build.app_id).toBe(created.body.id);
      for (const [method, path, send] of [
        ['post', '/api/v1/apps', { name: 'V', bundle_id_key: 'com.v', platform: 'ios' }],
        ['patch', `/api/v1/apps/${created.body.id}`, { name: 'V' }],
        ['delete', `/api/v1/apps/${created.body.id}`, undefined],
      ] as const) {
        expectError(await ctx.members.as(viewer, method, path).send(send), 403, 'Viewers have read-only access');
      }
      expectError(await ctx.members.as(dev, 'post', '/api/v1/apps').send({ name: 'x', bundle_id_key: 'y', platform: 'web' }), 400);
      expectError(await ctx.members.as(dev, 'post', '/api/v1/apps').send({ bundle_id_key: 'y', platform: 'ios' }), 400);
      expectError(await ctx.members.as(dev, 'patch', `/api/v1/apps/${created.body.id}`).send({}), 400);
      expectOk(await ctx.members.as(dev, 'delete', `/api/v1/apps/${created.body.id}`));
      expectError(await ctx.members.as(dev, 'get', `/api/v1/builds/${build.id}`), 404, 'Build not found');
      const pat = await ctx.members.pat(dev, 'view,builds:write');
      expectError(await ctx.members.withPat(pat, 'post', '/api/v1/apps').send({ name: 'P', bundle_id_key: 'p', platform: 'ios' }), 401, 'Unauthorized');
    });
  });

  // Last: moves the clock past every session above.
  it('§3: a build past delete_after is purged (files and record): GET 404 `Build not found`', async () => {
    const { body } = await upload(dev, 'string-label.apk').expect(201);
    await ctx.members.as(dev, 'post', `/api/v1/builds/${body.id}/schedule-deletion`).expect(200);
    await ctx.relay.app.get(ScheduledPurgesService).runAll();
    await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}`).expect(200);
    ctx.relay.clock.advance(7 * DAY + 60_000);
    await ctx.relay.app.get(ScheduledPurgesService).runAll();
    const cookie = await ctx.members.login(dev.email);
    expectError(await ctx.relay.http().get(`/api/v1/builds/${body.id}`).set('Cookie', cookie), 404, 'Build not found');
  });
});
