import { AppCandidate, chooseApp, isMacAppPlist, MAX_APP_CANDIDATES } from './app-choice';
import { DEVICE_BUILD_MESSAGE } from './archive-type';
import { MalformedBuildError } from './malformed-build.error';

/** An XML Info.plist of string values and string arrays. */
function plist(values: Record<string, string | string[]>): Buffer {
  const value = (v: string | string[]) =>
    Array.isArray(v) ? `<array>${v.map((s) => `<string>${s}</string>`).join('')}</array>` : `<string>${v}</string>`;
  const body = Object.entries(values).map(([k, v]) => `<key>${k}</key>${value(v)}`).join('');
  return Buffer.from(`<?xml version="1.0"?><plist version="1.0"><dict>${body}</dict></plist>`);
}

const app = (id: string, extra: Record<string, string | string[]> = {}) =>
  plist({ CFBundleIdentifier: id, CFBundlePackageType: 'APPL', CFBundleSupportedPlatforms: ['iPhoneSimulator'], ...extra });
const candidate = (plistPath: string, bytes: Buffer): AppCandidate => ({ plistPath, read: async () => bytes });
/** A candidate whose plist must never be read. */
const unread = (plistPath: string): AppCandidate => ({
  plistPath,
  read: () => Promise.reject(new Error(`${plistPath} was read`)),
});
const noApp = () => new MalformedBuildError('no app bundle');
const choose = (candidates: AppCandidate[], mac: AppCandidate | null = null) => chooseApp(candidates, mac, noApp);

describe('which .app of an archive is the build', () => {
  it('skips a runner by its folder name without reading it, and one named otherwise by its .xctrunner id', async () => {
    const chosen = await choose([
      unread('P/MyAppUITests-Runner.app/Info.plist'),
      candidate('P/Detox.app/Info.plist', app('com.wix.DetoxXCUITestRunnerApp.xctrunner')),
      candidate('P/MyApp.app/Info.plist', app('com.example.myapp')),
    ]);
    expect(chosen).toMatchObject({ plistPath: 'P/MyApp.app/Info.plist', info: { metadata: { bundleId: 'com.example.myapp' } } });
  });

  it('skips .app folders whose CFBundlePackageType is not APPL; one without the key counts as an app', async () => {
    const bundle = candidate('Odd.app/Info.plist', app('com.example.odd', { CFBundlePackageType: 'BNDL' }));
    const bare = candidate('Bare.app/Info.plist', plist({ CFBundleIdentifier: 'com.example.bare' }));
    expect((await choose([bundle, bare])).info.metadata.bundleId).toBe('com.example.bare');
  });

  it('names what it skipped when no app is left', async () => {
    const runnerById = candidate('R.app/Info.plist', app('com.example.ui.xctrunner'));
    const bundle = candidate('Odd.app/Info.plist', app('com.example.odd', { CFBundlePackageType: 'BNDL' }));
    await expect(choose([unread('X-Runner.app/Info.plist'), runnerById, bundle])).rejects.toThrow(
      "The archive holds no app, only X-Runner.app (a UI test runner), R.app (com.example.ui.xctrunner, a UI test runner), Odd.app (com.example.odd, CFBundlePackageType BNDL); zip or tar the app's .app folder",
    );
    await expect(choose([])).rejects.toThrow(/^no app bundle$/);
  });

  it('refuses more candidates than it reads, before reading any', async () => {
    const many = Array.from({ length: MAX_APP_CANDIDATES + 1 }, (_, i) => unread(`P/A${i}.app/Info.plist`));
    await expect(choose(many)).rejects.toThrow(`more than ${MAX_APP_CANDIDATES} app bundles`);
  });

  it('takes a simulator build (also one that names the device too) and a plist that declares no platform', async () => {
    await expect(choose([candidate('A.app/Info.plist', app('a', { CFBundleSupportedPlatforms: ['iPhoneOS', 'iPhoneSimulator'] }))])).resolves.toBeTruthy();
    await expect(choose([candidate('A.app/Info.plist', app('a', { DTPlatformName: 'iphonesimulator', CFBundleSupportedPlatforms: [] }))])).resolves.toBeTruthy();
    await expect(choose([candidate('A.app/Info.plist', plist({ CFBundleIdentifier: 'a' }))])).resolves.toBeTruthy();
  });

  it('refuses a device build with the .ipa message: by its platforms, or in an .ipa\'s Payload/ folder', async () => {
    await expect(choose([candidate('A.app/Info.plist', app('a', { CFBundleSupportedPlatforms: [], DTPlatformName: 'iphoneos' }))])).rejects.toThrow(
      DEVICE_BUILD_MESSAGE,
    );
    await expect(choose([candidate('Payload/A.app/Info.plist', plist({ CFBundleIdentifier: 'a' }))])).rejects.toThrow(DEVICE_BUILD_MESSAGE);
  });

  it('names a macOS app: by its Contents/ layout (even unreadable), or by its platform or LSMinimumSystemVersion', async () => {
    const mac = candidate('Mac.app/Contents/Info.plist', plist({ CFBundleIdentifier: 'com.example.mac' }));
    const suffix = '; the relay takes iOS simulator builds and Android APKs';
    await expect(choose([], mac)).rejects.toThrow(`This is a macOS app (Mac.app, com.example.mac)${suffix}`);
    await expect(choose([], candidate('Mac.app/Contents/Info.plist', Buffer.from('junk')))).rejects.toThrow(`This is a macOS app (Mac.app)${suffix}`);
    await expect(choose([candidate('F.app/Info.plist', app('f', { CFBundleSupportedPlatforms: ['MacOSX'] }))])).rejects.toThrow(/macOS app \(F\.app, f\)/);
    await expect(choose([candidate('F.app/Info.plist', app('f', { CFBundleSupportedPlatforms: [], LSMinimumSystemVersion: '13.0' }))])).rejects.toThrow(/macOS app/);
  });

  it('knows a macOS bundle’s plist from a dSYM’s and from a nested framework’s', () => {
    expect(isMacAppPlist('Mac.app/Contents/Info.plist')).toBe(true);
    expect(isMacAppPlist('build/Mac.app/Contents/Info.plist')).toBe(true);
    expect(isMacAppPlist('Release-iphonesimulator/MyApp.app.dSYM/Contents/Info.plist')).toBe(false);
    expect(isMacAppPlist('__MACOSX/Mac.app/Contents/Info.plist')).toBe(false);
    expect(isMacAppPlist('Host.app/Mac.app/Contents/Info.plist')).toBe(false);
    expect(isMacAppPlist('a/b/Mac.app/Contents/Info.plist')).toBe(false);
  });
});
