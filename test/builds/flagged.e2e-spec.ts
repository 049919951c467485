import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fixture } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { npmApk } from './contents-tools';

/**
 * Flags stored at upload against the previous build (docs/builds.md "Flagged builds"): each build
 * of GET /builds carries them, `flagged=true` filters on them, and GET /apps/:id/sizes gives
 * an app's file sizes over its last builds. SQLite by default; PostgreSQL through test:postgres.
 */
describe('flagged builds and app sizes', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  const ids: Record<string, { id: number; app_id: number }> = {};
  const files: Record<string, string> = {
    'shop-1': fixture(join('contents', 'shop-1.apk')),
    'shop-2': fixture(join('contents', 'shop-2.apk')),
    'apidemos-3': npmApk('apidemos-3', 'ApiDemos-debug.apk'),
    'apidemos-4': npmApk('apidemos-4', 'ApiDemos-debug.apk'),
    'apidemos-5': npmApk('apidemos-5', 'ApiDemos-debug.apk'),
  };

  const list = async (query: string) => (await members.as(dev, 'get', `/api/v1/builds${query}`).expect(200)).body;
  type Listed = { id: number; flags: { kind: string; reason: string; subject: string | null }[] };

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    // Upload order is the order of "previous".
    for (const [name, file] of Object.entries(files)) {
      const res = await members.as(dev, 'post', '/api/v1/builds').attach('file', readFileSync(file), basename(file)).expect(201);
      ids[name] = res.body;
    }
  }, 120_000);
  afterAll(() => relay.close());

  it('each build carries the flags of its comparison with the previous build, stored at upload', async () => {
    const { items } = await list('?limit=100');
    const flagsOf = (name: string) => (items as Listed[]).find((b) => b.id === ids[name].id)!.flags;
    expect(flagsOf('shop-1')).toEqual([]); // the first build of its app
    expect(flagsOf('apidemos-4')).toEqual([]); // 4 % larger, same key and permissions
    const live = (await members.as(dev, 'get', `/api/v1/builds/${ids['shop-2'].id}/compare`).expect(200)).body.flags;
    expect(flagsOf('shop-2')).toEqual(live);
    expect(flagsOf('shop-2').map((f) => f.kind)).toEqual(['new_permission', 'size_jump', 'min_sdk_raised', 'abi_removed', 'signing_changed']);
    expect(flagsOf('apidemos-5').map((f) => f.kind)).toEqual(['new_permission', 'new_permission', 'size_jump', 'signing_changed']);
    const one = (await members.as(dev, 'get', `/api/v1/builds/${ids['shop-2'].id}`).expect(200)).body;
    expect(one.flags).toEqual(live);
  });

  it('flagged=true lists only flagged builds, with their count; combined with app_id and pages', async () => {
    const flagged = await list('?flagged=true');
    expect((flagged.items as Listed[]).map((b) => b.id)).toEqual([ids['apidemos-5'].id, ids['shop-2'].id]);
    expect(flagged.total).toBe(2);
    const ofApp = await list(`?flagged=true&app_id=${ids['apidemos-5'].app_id}`);
    expect([ofApp.items.map((b: Listed) => b.id), ofApp.total]).toEqual([[ids['apidemos-5'].id], 1]);
    const page2 = await list('?flagged=true&limit=1&page=1');
    expect([page2.items.map((b: Listed) => b.id), page2.total]).toEqual([[ids['shop-2'].id], 2]);
  });

  it('flagged=true combines with search and status=untriaged (docs/builds.md "Search"), pages and counts included', async () => {
    const idsOf = (page: { items: Listed[] }) => page.items.map((b) => b.id);
    // The ApiDemos builds share the bundle id io.appium.android.apis; only 5.0.0 is flagged.
    const searched = await list('?flagged=true&search=apis');
    expect([idsOf(searched), searched.total]).toEqual([[ids['apidemos-5'].id], 1]);
    const untriaged = await list('?flagged=true&status=untriaged');
    expect([idsOf(untriaged), untriaged.total]).toEqual([[ids['apidemos-5'].id, ids['shop-2'].id], 2]);
    await members.as(dev, 'patch', `/api/v1/builds/${ids['shop-2'].id}`).send({ status_label: 'Done' }).expect(200);
    try {
      const all = await list('?flagged=true&status=untriaged&search=a');
      expect([idsOf(all), all.total]).toEqual([[ids['apidemos-5'].id], 1]);
      // Past the last page: the count is asked alone (build_flags joined, the search condition kept).
      const past = await list('?flagged=true&status=untriaged&search=apis&limit=1&page=1');
      expect([idsOf(past), past.total]).toEqual([[], 1]);
    } finally {
      await members.as(dev, 'patch', `/api/v1/builds/${ids['shop-2'].id}`).send({ status_label: null }).expect(200);
    }
  });

  it.each(['false', 'yes', '1', 'TRUE', ''])('flagged=%s is a 400 naming the parameter', async (value) => {
    const res = await members.as(dev, 'get', `/api/v1/builds?flagged=${value}`).expect(400);
    expect(res.body).toEqual({ error: 'flagged must be true (leave it out for every build)' });
  });

  it('deleting the build compared with leaves the flags (they describe the upload); deleting a flagged build removes its row', async () => {
    const before = (await list('?flagged=true')).total;
    const db = relay.app.get((await import('typeorm')).DataSource);
    await db.query('DELETE FROM builds WHERE id = ' + Number(ids['shop-2'].id));
    const [{ n }] = await db.query('SELECT COUNT(*) AS n FROM build_flags WHERE build_id = ' + Number(ids['shop-2'].id));
    expect(Number(n)).toBe(0);
    expect((await list('?flagged=true')).total).toBe(before - 1);
  });

  it("an upload's flags follow its app's compare settings of the moment (read with the previous build, in the upload's transaction)", async () => {
    const app = ids['shop-1'].app_id;
    const settings = { size_jump_percent: 10000, size_jump_bytes: null, flag_every_new_permission: false, watched_permissions: ['android.permission.CAMERA'] };
    await members.as(dev, 'put', `/api/v1/apps/${app}/compare-settings`).send(settings).expect(200);
    for (const name of ['shop-1', 'shop-2']) {
      const res = await members.as(dev, 'post', '/api/v1/builds').attach('file', readFileSync(files[name]), basename(files[name])).expect(201);
      ids[`${name} again`] = res.body;
    }
    const { items } = await list(`?app_id=${app}&limit=100`);
    const flags = (items as Listed[]).find((b) => b.id === ids['shop-2 again'].id)!.flags;
    // Under the defaults: new_permission (every one), size_jump, min_sdk_raised, abi_removed, signing_changed.
    expect(flags.map((f) => f.kind)).toEqual(['new_permission', 'min_sdk_raised', 'abi_removed', 'signing_changed']);
    expect(flags[0]).toMatchObject({ subject: 'android.permission.CAMERA', reason: 'New permission android.permission.CAMERA (on the watch-list)' });
  });

  describe('GET /apps/:id/sizes', () => {
    it("the app's last builds on its platform, oldest first, with file sizes", async () => {
      const app = ids['apidemos-3'].app_id;
      const res = await members.as(dev, 'get', `/api/v1/apps/${app}/sizes`).expect(200);
      expect(res.body.app_id).toBe(app);
      expect(res.body.items.map((b: { build_id: number }) => b.build_id)).toEqual([ids['apidemos-3'].id, ids['apidemos-4'].id, ids['apidemos-5'].id]);
      expect(res.body.items.map((b: { file_size: number }) => b.file_size)).toEqual(
        ['apidemos-3', 'apidemos-4', 'apidemos-5'].map((name) => readFileSync(files[name]).length),
      );
      expect(res.body.items[2]).toMatchObject({ version_name: '5.0.0', flag_count: 4 });
      expect(res.body.items[0]).toMatchObject({ flag_count: 0, uploaded_at: expect.stringMatching(/Z$/) });
      const two = await members.as(dev, 'get', `/api/v1/apps/${app}/sizes?limit=2`).expect(200);
      expect(two.body.items.map((b: { build_id: number }) => b.build_id)).toEqual([ids['apidemos-4'].id, ids['apidemos-5'].id]);
    });

    it('a PAT with view scope reads it; an unknown app is 404; a bad limit is 400', async () => {
      const pat = await members.pat(await members.member('Viewer'), 'view');
      await members.withPat(pat, 'get', `/api/v1/apps/${ids['shop-1'].app_id}/sizes`).expect(200);
      expect((await members.as(dev, 'get', '/api/v1/apps/999999/sizes').expect(404)).body).toEqual({ error: 'App not found' });
      expect((await members.as(dev, 'get', `/api/v1/apps/${ids['shop-1'].app_id}/sizes?limit=0`).expect(400)).body).toEqual({
        error: 'limit must be an integer from 1 to 50',
      });
    });
  });
});
