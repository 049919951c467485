import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DataSource } from 'typeorm';
import { fixture } from '../support/build-fixtures';
import { itUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { aaptBadging, aaptPermissions, apksignerCerts, keytoolSha256, missingTool, npmApk, zipTotals } from './contents-tools';

/**
 * GET /builds/:id/contents and /builds/:id/compare (docs/builds.md "Contents and comparison") on
 * aapt-built pairs and an iOS simulator pair (test/fixtures/make-contents-fixtures.sh), and on
 * released APKs of Appium's ApiDemos and Settings apps (npm packages): the figures must agree with
 * aapt, apksigner, keytool and python's zipfile run here.
 */
const CONTENTS = 'contents';
const path = (name: string) => fixture(join(CONTENTS, name));
type Breakdown = Record<string, { count: number; compressed: number; uncompressed: number }>;
const EXPECTED: Record<string, { file_size: number; entries: Breakdown[string]; breakdown: Breakdown }> = JSON.parse(
  readFileSync(path('expected.json'), 'utf8'),
);

const REAL = {
  'apidemos-3': npmApk('apidemos-3', 'ApiDemos-debug.apk'),
  'apidemos-4': npmApk('apidemos-4', 'ApiDemos-debug.apk'),
  'apidemos-5': npmApk('apidemos-5', 'ApiDemos-debug.apk'),
  'settings-4': npmApk('appium-settings-4', 'settings_apk-debug.apk'),
  'settings-5': npmApk('appium-settings-5', 'settings_apk-debug.apk'),
};
const ANDROID_TOOLS = missingTool('aapt', 'apksigner', 'keytool', 'python3');

interface Category {
  category: string;
  name: string | null;
  count: number;
  compressed: number | null;
  uncompressed: number;
}

describe('build contents and comparison', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let dev: TestMember;
  const ids: Record<string, number> = {};

  const upload = async (file: string, name = basename(file), fields: Record<string, string> = {}) => {
    const req = members.as(dev, 'post', '/api/v1/builds');
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return (await req.attach('file', readFileSync(file), name).expect(201)).body as { id: number; app_id: number };
  };
  const contents = async (id: number) => (await members.as(dev, 'get', `/api/v1/builds/${id}/contents`).expect(200)).body;
  const compare = (id: number, to?: string) => members.as(dev, 'get', `/api/v1/builds/${id}/compare${to ? `?to=${to}` : ''}`);

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    dev = await members.member('Developer');
    // Upload order is the order of "previous".
    for (const name of ['shop-1.apk', 'shop-2.apk', 'Shop-1.app.zip', 'Shop-2.app.zip']) ids[name] = (await upload(path(name))).id;
    for (const [name, file] of Object.entries(REAL)) ids[name] = (await upload(file, `${name}.apk`)).id;
  }, 120_000);
  afterAll(() => relay.close());

  /** The breakdown keyed like expected.json (`category` or `category/name`). */
  const keyed = (breakdown: Category[]) =>
    Object.fromEntries(breakdown.map((c) => [c.name ? `${c.category}/${c.name}` : c.category, { count: c.count, compressed: c.compressed, uncompressed: c.uncompressed }]));

  it.each(['shop-1.apk', 'shop-2.apk', 'Shop-1.app.zip', 'Shop-2.app.zip'])('%s: sizes per category are what zipfile counts', async (name) => {
    const body = await contents(ids[name]);
    expect(body.unavailable_reason).toBeNull();
    expect(body.contents.file_size).toBe(EXPECTED[name].file_size);
    expect(body.contents.entries).toEqual(EXPECTED[name].entries);
    expect(keyed(body.contents.breakdown)).toEqual(EXPECTED[name].breakdown);
  });

  it('the iOS pair: minimum OS, frameworks, capabilities, usage descriptions, URL schemes, extensions from the bundle', async () => {
    const one = (await contents(ids['Shop-1.app.zip'])).contents;
    const two = (await contents(ids['Shop-2.app.zip'])).contents;
    expect(one.android).toBeNull();
    expect(one.ios).toEqual({
      minimum_os: '15.0',
      frameworks: ['Analytics.framework'],
      required_device_capabilities: ['arm64'],
      usage_descriptions: { NSPhotoLibraryUsageDescription: 'Pick a picture of the item' },
      url_schemes: ['shop'],
      extensions: ['Widget.appex'],
    });
    expect(two.ios).toMatchObject({
      minimum_os: '16.0',
      frameworks: ['Analytics.framework', 'Payments.framework'],
      usage_descriptions: { NSPhotoLibraryUsageDescription: 'Pick a picture of the item', NSCameraUsageDescription: 'Scan a barcode' },
      url_schemes: ['shop', 'shop-pay'],
    });
    expect(two.breakdown.find((c: Category) => c.category === 'executable')).toMatchObject({ count: 1, uncompressed: 180000 });
  });

  it('compares the iOS pair: framework added, minimum OS raised, usage description added, flagged with reasons', async () => {
    const res = await compare(ids['Shop-2.app.zip']).expect(200);
    const c = res.body;
    expect(c.compared_with.id).toBe(ids['Shop-1.app.zip']);
    expect(c.frameworks).toEqual({ added: ['Payments.framework'], removed: [] });
    expect(c.minimum_os).toEqual({ before: '15.0', after: '16.0', changed: true });
    expect(c.usage_descriptions).toEqual({ added: ['NSCameraUsageDescription'], removed: [] });
    expect(c.url_schemes).toEqual({ added: ['shop-pay'], removed: [] });
    expect(c.signing).toBeNull();
    expect(c.flags.map((f: { kind: string }) => f.kind)).toEqual(['size_jump', 'min_os_raised', 'usage_description_added']);
    expect(c.flags[1].reason).toBe('Minimum iOS raised from 15.0 to 16.0');
    expect(c.categories.find((d: { name: string }) => d.name === 'Payments.framework').uncompressed.before).toBe(0);
    expect(c.size.file).toEqual({
      before: EXPECTED['Shop-1.app.zip'].file_size,
      after: EXPECTED['Shop-2.app.zip'].file_size,
      delta: EXPECTED['Shop-2.app.zip'].file_size - EXPECTED['Shop-1.app.zip'].file_size,
      percent: expect.any(Number),
    });
  });

  itUnless(ANDROID_TOOLS, 'the aapt pair: permissions, features, SDKs, ABIs and signing agree with aapt, apksigner and keytool', async () => {
    for (const name of ['shop-1.apk', 'shop-2.apk']) {
      const android = (await contents(ids[name])).contents.android;
      const badging = aaptBadging(path(name));
      const signer = apksignerCerts(path(name));
      expect(android.permissions).toEqual(aaptPermissions(path(name)));
      expect({ min_sdk: android.min_sdk, target_sdk: android.target_sdk, features: android.features }).toEqual({
        min_sdk: badging.minSdk,
        target_sdk: badging.targetSdk,
        features: badging.features,
      });
      expect(android.signing.schemes).toEqual(signer.schemes);
      expect(android.signing.certificate).toEqual({ sha256: signer.sha256, subject: signer.subject });
    }
    expect((await contents(ids['shop-1.apk'])).contents.android.signing.certificate.sha256).toBe(keytoolSha256(path('shop-1.apk')));
    expect((await contents(ids['shop-1.apk'])).contents.android.abis).toEqual(['arm64-v8a', 'x86']);
  }, 120_000);

  it('compares the aapt pair: CAMERA added, native x86 dropped, min SDK raised, another key, each flagged', async () => {
    const c = (await compare(ids['shop-2.apk'], 'previous').expect(200)).body;
    expect(c.compared_with.id).toBe(ids['shop-1.apk']);
    expect(c.permissions).toEqual({ added: ['android.permission.CAMERA'], removed: [] });
    expect(c.features).toEqual({ added: ['android.hardware.camera'], removed: [] });
    expect(c.abis).toEqual({ added: [], removed: ['x86'] });
    expect(c.min_sdk).toEqual({ before: '21', after: '24', changed: true });
    expect(c.signing.changed).toBe(true);
    expect(c.signing.schemes).toEqual({ added: ['v3'], removed: [] });
    expect(c.flags.map((f: { kind: string; subject: string | null }) => [f.kind, f.subject])).toEqual([
      ['new_permission', 'android.permission.CAMERA'],
      ['size_jump', null],
      ['min_sdk_raised', null],
      ['abi_removed', 'x86'],
      ['signing_changed', null],
    ]);
    expect(c.grown_entries[0]).toEqual({ path: 'assets/catalogue.bin', change: 'grew', before: 262144, after: 524288, delta: 262144 });
    const x86 = c.categories.find((d: { category: string; name: string }) => d.category === 'native' && d.name === 'x86');
    expect(x86.uncompressed).toEqual({ before: 40000, after: 0, delta: -40000, percent: -100 });
  });

  describe('released builds from npm (ApiDemos 3.3.1, 4.1.1, 5.0.0; Appium Settings 4.0.0, 5.0.0)', () => {
    itUnless(ANDROID_TOOLS, 'permissions, features, SDKs and signing agree with aapt and apksigner; the breakdown adds up to the entries', async () => {
      for (const [name, file] of Object.entries(REAL)) {
        const body = (await contents(ids[name])).contents;
        const badging = aaptBadging(file);
        const signer = apksignerCerts(file);
        expect([name, body.android.permissions]).toEqual([name, aaptPermissions(file)]);
        expect([name, body.android.min_sdk, body.android.target_sdk, body.android.features]).toEqual([name, badging.minSdk, badging.targetSdk, badging.features]);
        expect([name, body.android.signing.schemes, body.android.signing.certificate]).toEqual([name, signer.schemes, { sha256: signer.sha256, subject: signer.subject }]);
        expect([name, body.android.signing.certificate.sha256]).toEqual([name, keytoolSha256(file)]);
        expect([name, body.entries]).toEqual([name, zipTotals(file)]);
        const sum = (key: 'count' | 'compressed' | 'uncompressed') => body.breakdown.reduce((n: number, c: Category) => n + (c[key] ?? 0), 0);
        expect([sum('count'), sum('compressed'), sum('uncompressed')]).toEqual([body.entries.count, body.entries.compressed, body.entries.uncompressed]);
        expect(body.file_size).toBe(readFileSync(file).length);
      }
    }, 180_000); // 15 JVM starts (apksigner, keytool) on a busy machine

    it('ApiDemos 3.3.1 → 4.1.1: same key, same permissions, 4 % larger: nothing flagged', async () => {
      const c = (await compare(ids['apidemos-4'], String(ids['apidemos-3'])).expect(200)).body;
      expect(c.permissions).toEqual({ added: [], removed: [] });
      expect(c.target_sdk).toEqual({ before: '29', after: '31', changed: true });
      expect(c.signing.changed).toBe(false);
      expect(c.size.file.percent).toBeCloseTo(3.98, 1);
      expect(c.flags).toEqual([]);
    });

    it('ApiDemos 4.1.1 → 5.0.0: POST_NOTIFICATIONS added, target SDK 33, re-signed with another debug key, 27 % larger', async () => {
      const c = (await compare(ids['apidemos-5'], String(ids['apidemos-4'])).expect(200)).body;
      expect(c.permissions.added).toEqual(['android.permission.POST_NOTIFICATIONS', 'io.appium.android.apis.DYNAMIC_RECEIVER_NOT_EXPORTED_PERMISSION']);
      expect(c.target_sdk).toEqual({ before: '31', after: '33', changed: true });
      expect(c.flags.map((f: { kind: string }) => f.kind)).toEqual(['new_permission', 'new_permission', 'size_jump', 'signing_changed']);
      expect(c.grown_entries.length).toBeGreaterThan(0);
    });

    it('Settings 4.0.0 → 5.0.0: RECORD_AUDIO added, min SDK 18 → 21, another key', async () => {
      const c = (await compare(ids['settings-5']).expect(200)).body;
      expect(c.compared_with.id).toBe(ids['settings-4']);
      expect(c.permissions).toEqual({ added: ['android.permission.RECORD_AUDIO'], removed: [] });
      // aapt implies android.hardware.microphone from RECORD_AUDIO; only declared features count.
      expect(c.features).toEqual({ added: [], removed: [] });
      expect(c.flags.map((f: { kind: string }) => f.kind)).toEqual(['new_permission', 'size_jump', 'min_sdk_raised', 'signing_changed']);
      expect(c.flags.find((f: { kind: string }) => f.kind === 'min_sdk_raised').reason).toBe('Minimum SDK raised from 18 to 21');
    });
  });

  describe('choosing the other build, and refusals', () => {
    it('the first build of an app has no previous one: 404 with a clear message; nothing Done yet: 404', async () => {
      const res = await compare(ids['shop-1.apk']).expect(404);
      expect(res.body).toEqual({ error: `Build ${ids['shop-1.apk']} is the first build of its app on its platform: there is no previous build to compare with` });
      expect((await compare(ids['shop-2.apk'], 'last_done').expect(404)).body.error).toBe(
        `No build of the same app and platform uploaded before build ${ids['shop-2.apk']} is Done`,
      );
    });

    it('last_done is the latest Done build uploaded before', async () => {
      await members.as(dev, 'patch', `/api/v1/builds/${ids['apidemos-3']}`).send({ status_label: 'Done' }).expect(200);
      expect((await compare(ids['apidemos-5'], 'last_done').expect(200)).body.compared_with.id).toBe(ids['apidemos-3']);
    });

    it('the contents name the builds previous and last_done resolve to (null when compare would 404), so a page asks only for what exists', async () => {
      const earlier = async (id: number) => {
        const { previous_build_id, last_done_build_id } = await contents(id);
        return { previous_build_id, last_done_build_id };
      };
      expect(await earlier(ids['shop-1.apk'])).toEqual({ previous_build_id: null, last_done_build_id: null });
      expect(await earlier(ids['shop-2.apk'])).toEqual({ previous_build_id: ids['shop-1.apk'], last_done_build_id: null });
      // apidemos-3 was made Done above; per platform and app, as compare resolves them.
      expect(await earlier(ids['apidemos-5'])).toEqual({ previous_build_id: ids['apidemos-4'], last_done_build_id: ids['apidemos-3'] });
      expect(await earlier(ids['apidemos-3'])).toEqual({ previous_build_id: null, last_done_build_id: null });
      expect((await compare(ids['apidemos-5'], 'previous').expect(200)).body.compared_with.id).toBe(ids['apidemos-4']);
    });

    it('builds of different apps or platforms: 400; a bad `to`: 400; an unknown build: 404', async () => {
      expect((await compare(ids['shop-2.apk'], String(ids['settings-4'])).expect(400)).body).toEqual({ error: 'Both builds must belong to the same app' });
      const both = (await members.as(dev, 'post', '/api/v1/apps').send({ name: 'Both', bundle_id_key: 'com.example.both', platform: 'both' }).expect(201)).body.id;
      const apk = await upload(path('shop-1.apk'), 'shop-1.apk', { app_id: String(both) });
      const app = await upload(path('Shop-1.app.zip'), 'Shop-1.app.zip', { app_id: String(both) });
      expect((await compare(app.id, String(apk.id)).expect(400)).body).toEqual({ error: 'Both builds must be of the same platform' });
      // Previous is per platform: the iOS build of the app has none before it.
      expect((await compare(app.id).expect(404)).body.error).toContain('is the first build of its app on its platform');
      expect((await compare(ids['shop-2.apk'], 'newest').expect(400)).body).toEqual({ error: 'to must be a build id, previous or last_done' });
      expect((await compare(ids['shop-2.apk'], '1e3').expect(400)).body).toEqual({ error: 'to must be a build id, previous or last_done' });
      expect((await compare(ids['shop-2.apk'], '99999999').expect(404)).body).toEqual({ error: 'Build not found' });
      expect((await compare(99999999).expect(404)).body).toEqual({ error: 'Build not found' });
      expect((await members.as(dev, 'get', '/api/v1/builds/99999999/contents').expect(404)).body).toEqual({ error: 'Build not found' });
    });
  });

  describe('per-app settings', () => {
    const settingsPath = () => `/api/v1/apps/${appOf('shop-2.apk')}/compare-settings`;
    let apps: Record<number, number>;
    const appOf = (name: string) => apps[ids[name]];
    beforeAll(async () => {
      const all = (await members.as(dev, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as { id: number; app_id: number }[];
      apps = Object.fromEntries(all.map((b) => [b.id, b.app_id]));
    });

    it('defaults until set; Admins and Developers may set them, QA and Viewers get 403; bad values are 400 naming the field', async () => {
      expect((await members.as(dev, 'get', settingsPath()).expect(200)).body).toEqual({
        size_jump_percent: 10,
        size_jump_bytes: null,
        flag_every_new_permission: true,
        watched_permissions: [],
      });
      const body = { size_jump_percent: 200, size_jump_bytes: null, flag_every_new_permission: false, watched_permissions: ['android.permission.CAMERA'] };
      for (const role of ['QA', 'Viewer'] as const) {
        await members.as(await members.member(role), 'put', settingsPath()).send(body).expect(403);
      }
      expect((await members.as(dev, 'put', settingsPath()).send({ ...body, size_jump_percent: -1 }).expect(400)).body.error).toBe(
        'size_jump_percent must be a number from 0 to 10000',
      );
      expect((await members.as(dev, 'put', settingsPath()).send({ ...body, watched_permissions: 'CAMERA' }).expect(400)).body.error).toContain('watched_permissions');
      expect((await members.as(dev, 'put', '/api/v1/apps/99999999/compare-settings').send(body).expect(404)).body).toEqual({ error: 'App not found' });
      const admin = await members.member('Admin');
      expect((await members.as(admin, 'put', settingsPath()).send(body).expect(200)).body).toEqual(body);
      expect((await members.as(dev, 'get', settingsPath()).expect(200)).body).toEqual(body);
    });

    it('the thresholds and the watch-list change the flags', async () => {
      await members
        .as(dev, 'put', settingsPath())
        .send({ size_jump_percent: 200, size_jump_bytes: null, flag_every_new_permission: false, watched_permissions: ['android.permission.CAMERA'] })
        .expect(200);
      const watched = (await compare(ids['shop-2.apk']).expect(200)).body.flags;
      expect(watched.map((f: { kind: string }) => f.kind)).toEqual(['new_permission', 'min_sdk_raised', 'abi_removed', 'signing_changed']);
      expect(watched[0]).toMatchObject({ watched: true, reason: 'New permission android.permission.CAMERA (on the watch-list)' });
      await members
        .as(dev, 'put', settingsPath())
        .send({ size_jump_percent: 10000, size_jump_bytes: 1000, flag_every_new_permission: false, watched_permissions: [] })
        .expect(200);
      const bytes = (await compare(ids['shop-2.apk']).expect(200)).body.flags;
      expect(bytes.map((f: { kind: string }) => f.kind)).toEqual(['size_jump', 'min_sdk_raised', 'abi_removed', 'signing_changed']);
      expect(bytes[0].reason).toMatch(/at or over the threshold of 1000 bytes$/);
    });
  });

  describe('stored once; read later for builds uploaded before', () => {
    it('a build without a contents row gets it read from its file on first request, then stored', async () => {
      const db = relay.app.get(DataSource);
      const before = await contents(ids['settings-5']);
      await db.query('DELETE FROM build_contents WHERE build_id = ' + Number(ids['settings-5']));
      const again = await contents(ids['settings-5']);
      expect(again.contents).toEqual(before.contents);
      expect(await db.query('SELECT build_id FROM build_contents WHERE build_id = ' + Number(ids['settings-5']))).toHaveLength(1);
    });

    it('without its file, contents is null with the reason (and a comparison says so: 409)', async () => {
      const db = relay.app.get(DataSource);
      const [row] = await db.query('SELECT file_name FROM builds WHERE id = ' + Number(ids['apidemos-3']));
      await db.query('DELETE FROM build_contents WHERE build_id = ' + Number(ids['apidemos-3']));
      await relay.removeStoredFile(`builds/${row.file_name}`);
      const body = await contents(ids['apidemos-3']);
      expect(body).toMatchObject({ build_id: ids['apidemos-3'], contents: null, computed_at: null });
      expect(body.unavailable_reason).toMatch(/no longer there|object storage/);
      expect((await compare(ids['apidemos-4'], String(ids['apidemos-3'])).expect(409)).body.error).toMatch(
        new RegExp(`^The contents of build ${ids['apidemos-3']} are not available: `),
      );
    });

    it('two builds uploaded in the same millisecond: the lower id is the earlier one', async () => {
      const db = relay.app.get(DataSource);
      const [row] = await db.query('SELECT uploaded_at FROM builds WHERE id = ' + Number(ids['Shop-2.app.zip']));
      await db.query(`UPDATE builds SET uploaded_at = ${Number(row.uploaded_at)} WHERE id = ${Number(ids['Shop-1.app.zip'])}`);
      expect((await compare(ids['Shop-2.app.zip']).expect(200)).body.compared_with.id).toBe(ids['Shop-1.app.zip']);
      await compare(ids['Shop-1.app.zip']).expect(404);
    });

    it('finding the previous and the last Done build is one seek of an index (the query plan)', async () => {
      const db = relay.app.get(DataSource);
      if (db.options.type !== 'better-sqlite3' && db.options.type !== 'sqlite') return;
      const plan = async (status: string) =>
        (
          await db.query(
            `EXPLAIN QUERY PLAN SELECT b.id FROM builds b WHERE b.app_id = 1 AND b.platform = 'android' ${status}
             AND (b.uploaded_at, b.id) < (1, 1) ORDER BY b.uploaded_at DESC, b.id DESC LIMIT 1`,
          )
        )
          .map((r: { detail: string }) => r.detail)
          .join('; ');
      // The upper bound is the index range's end (SQLite keeps the `id` tie-break as a filter on equal times).
      expect(await plan('')).toMatch(/^SEARCH b USING COVERING INDEX IDX_builds_app_platform_uploaded \(app_id=\? AND platform=\? AND uploaded_at<\?\)$/);
      expect(await plan("AND b.status_label = 'Done'")).toMatch(
        /^SEARCH b USING COVERING INDEX IDX_builds_app_platform_status_uploaded \(app_id=\? AND platform=\? AND status_label=\? AND uploaded_at<\?\)$/,
      );
      expect(await plan('')).not.toContain('TEMP B-TREE');
    });
  });
});
