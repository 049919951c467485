import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import { DEVICE_BUILD_MESSAGE } from '../../src/inspection/archive-type';
import { ZipArchive } from '../../src/inspection/zip-archive';
import { attachBuild, buildFiles, fixture, tempFiles } from '../support/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { uploadedBuild } from './uploaded-build';

/**
 * iOS archives as Xcode leaves them (test/fixtures/builds/xcode/, made by xcode_fixtures.py): a whole
 * Release-iphonesimulator folder with a UI-test runner listed before the app, two apps, device and
 * macOS builds under a simulator build's name. docs/builds.md "Which .app is the build".
 */
const DIR = 'xcode';
const EXPECTED: Record<string, Parameters<typeof uploadedBuild>[0]> = JSON.parse(
  readFileSync(fixture(join(DIR, 'expected.json')), 'utf8'),
);
const RUNNER = 'com.example.myapp.MyAppUITests.xctrunner';
const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');

describe('iOS archives as Xcode makes them', () => {
  const ctx = useTestRelay();
  let dev: TestMember;
  let pat: string;

  beforeAll(async () => {
    dev = await ctx.members.member('Developer');
    pat = await ctx.members.pat(dev, 'builds:write');
  });

  const upload = (name: string) => attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), join(DIR, name), {}, name);
  const apps = async () =>
    (await ctx.members.as(dev, 'get', '/api/v1/apps').expect(200)).body.items as Array<{ id: number; bundle_id_key: string }>;
  const buildCount = async () => (await ctx.members.as(dev, 'get', '/api/v1/builds').expect(200)).body.total as number;
  /** What is left in tmp/: upload parts, and tus's partial files (its folder stays once made). */
  const leftovers = () => {
    const tus = join(ctx.relay.dataDir, 'tmp', 'tus');
    return [...tempFiles(ctx.relay).filter((n) => n !== 'tus'), ...(existsSync(tus) ? readdirSync(tus) : [])];
  };

  it.each(['detox-release.app.zip', 'detox-release.tar.gz'])(
    '%s (runner first) is filed under the app’s bundle id, not the test runner’s',
    async (name) => {
      const res = await upload(name).expect(201);
      expect(res.body).toEqual(uploadedBuild(EXPECTED[name]));
      const app = (await apps()).find((a) => a.id === res.body.app_id);
      expect(app).toMatchObject({ bundle_id_key: 'com.example.myapp', platform: 'ios' });
      expect((await apps()).map((a) => a.bundle_id_key)).not.toContain(RUNNER);
      expect(leftovers()).toEqual([]);
    },
  );

  it.each(['detox-release.app.zip', 'detox-release.tar.gz'])(
    '%s: the contents name the app’s own frameworks, extensions and executable, not the runner’s',
    async (name) => {
      const { body } = await upload(name).expect(201);
      const contents = (await ctx.members.as(dev, 'get', `/api/v1/builds/${body.id}/contents`).expect(200)).body.contents;
      expect(contents.ios).toMatchObject({ frameworks: ['MyKit.framework'], extensions: ['MyAppWidget.appex'] });
      const named = (category: string) => contents.breakdown.filter((c: { category: string }) => c.category === category);
      expect(named('framework').map((c: { name: string }) => c.name)).toEqual(['MyKit.framework']);
      expect(named('executable')).toMatchObject([{ count: 1, uncompressed: 64 }]);
    },
  );

  it('through tus too: the completing PATCH files the Detox build under the app', async () => {
    const data = readFileSync(fixture(join(DIR, 'detox-release.app.zip')));
    const created = await ctx.members
      .withPat(pat, 'post', '/api/v1/uploads/builds')
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Length', String(data.length))
      .set('Upload-Metadata', `filename ${b64('Release-iphonesimulator.app.zip')}`)
      .expect(201);
    const done = await ctx.members
      .withPat(pat, 'patch', created.headers.location)
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(data)
      .expect(201);
    expect(done.body).toMatchObject({ bundle_id: 'com.example.myapp', name: 'My App', platform: 'ios' });
    expect(leftovers()).toEqual([]);
  });

  it.each([
    [
      'two-apps.app.zip',
      'The archive holds more than one app: MyApp.app (com.example.myapp), Companion.app (com.example.companion); upload one',
    ],
    ['device.app.zip', DEVICE_BUILD_MESSAGE],
    ['payload.app.zip', DEVICE_BUILD_MESSAGE],
    [
      'macos.app.zip',
      'This is a macOS app (MyMacApp.app, com.example.macapp); the relay takes iOS simulator builds and Android APKs',
    ],
  ])('refuses %s with a 400 that says what it is, leaving nothing behind', async (name, message) => {
    const [appsBefore, buildsBefore, filesBefore] = [await apps(), await buildCount(), await buildFiles(ctx.relay)];
    const res = await upload(name).expect(400);
    expect(res.body).toEqual({ error: message });
    expect(await apps()).toEqual(appsBefore);
    expect(await buildCount()).toBe(buildsBefore);
    expect(await buildFiles(ctx.relay)).toEqual(filesBefore);
    expect(leftovers()).toEqual([]);
  });

  it('an .ipa is refused with the same message as a device build inside an .app.zip', async () => {
    const res = await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'app.ipa').expect(400);
    expect(res.body).toEqual({ error: DEVICE_BUILD_MESSAGE });
  });

  describe('the fixtures are what they claim', () => {
    it('the runner comes before the app in both archives; the Info.plists are binary', async () => {
      const zipNames = await zipEntries('detox-release.app.zip');
      const runnerAt = zipNames.indexOf('Release-iphonesimulator/MyAppUITests-Runner.app/Info.plist');
      expect(runnerAt).toBeGreaterThanOrEqual(0);
      expect(runnerAt).toBeLessThan(zipNames.indexOf('Release-iphonesimulator/MyApp.app/Info.plist'));
      expect(zipNames).toEqual(
        expect.arrayContaining([
          'Release-iphonesimulator/MyApp.app.dSYM/Contents/Info.plist',
          'Release-iphonesimulator/MyKit.framework/Info.plist',
        ]),
      );
      const tarNames = await tarEntries('detox-release.tar.gz');
      expect(tarNames.indexOf('Release-iphonesimulator/MyAppUITests-Runner.app/Info.plist')).toBeLessThan(
        tarNames.indexOf('Release-iphonesimulator/MyApp.app/Info.plist'),
      );
      const devicePlist = await zipRead('device.app.zip', 'Release-iphoneos/MyApp.app/Info.plist');
      expect(devicePlist.subarray(0, 8).toString('latin1')).toBe('bplist00');
      expect(devicePlist.includes('iPhoneOS')).toBe(true);
      expect(await zipEntries('payload.app.zip')).toContain('Payload/MyApp.app/Info.plist');
      expect(await zipEntries('macos.app.zip')).toContain('MyMacApp.app/Contents/Info.plist');
    });
  });
});

async function zipEntries(name: string): Promise<string[]> {
  const zip = await ZipArchive.open(fixture(join(DIR, name)));
  const names: string[] = [];
  await zip.scan((ref) => void names.push(ref.name));
  zip.close();
  return names;
}

async function zipRead(name: string, entry: string): Promise<Buffer> {
  const zip = await ZipArchive.open(fixture(join(DIR, name)));
  try {
    let found: Parameters<ZipArchive['read']>[0] | null = null;
    await zip.scan((ref) => {
      if (ref.name === entry) found = ref;
      return found !== null;
    });
    return await zip.read(found!, 1024 * 1024, entry);
  } finally {
    zip.close();
  }
}

async function tarEntries(name: string): Promise<string[]> {
  const tar = tarExtract();
  const names: string[] = [];
  const gunzip = createGunzip();
  gunzip.pipe(tar);
  gunzip.end(readFileSync(fixture(join(DIR, name))));
  for await (const entry of tar) {
    names.push(entry.header.name);
    entry.resume();
  }
  return names;
}
