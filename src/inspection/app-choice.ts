import { DEVICE_BUILD_MESSAGE } from './archive-type';
import { BundleInfo, readBundleInfos } from './info-plist';
import { MalformedBuildError } from './malformed-build.error';

/**
 * Which `.app` of an archive is the build. Xcode's `Release-iphonesimulator/`, zipped or tarred
 * whole, holds the app beside its UI-test runner (`MyAppUITests-Runner.app`, itself an APPL bundle
 * with a `….xctrunner` id), frameworks, `.xctest` bundles and dSYMs, in whatever order the
 * directory listing gave: the first `.app` is often the runner. docs/builds.md "Which .app is the build".
 */

/** Candidate apps whose Info.plists are read (a products folder has one or two; each plist ≤ 1 MB). */
export const MAX_APP_CANDIDATES = 8;

/** A bundle's own Info.plist at an accepted depth (`Foo.app/Info.plist`, `folder/Foo.app/Info.plist`), and how to read it. */
export interface AppCandidate {
  plistPath: string;
  read(): Promise<Buffer>;
}

export interface ChosenApp {
  plistPath: string;
  info: BundleInfo;
}

/** `Foo.app` for `Foo.app/Info.plist`, `folder/Foo.app/Info.plist` or `Foo.app/Contents/Info.plist`. */
export function bundleFolderOf(plistPath: string): string {
  const parts = plistPath.split('/');
  return parts[parts.length - (parts[parts.length - 2] === 'Contents' ? 3 : 2)];
}

/** Xcode names a UI-test target's host app `<Target>-Runner.app`; it is never the build, so its plist is not even read. */
export function isTestRunnerPlist(plistPath: string): boolean {
  return isTestRunnerFolder(bundleFolderOf(plistPath));
}

export function isTestRunnerFolder(bundleFolder: string): boolean {
  return /-Runner\.app$/i.test(bundleFolder);
}

/** `Foo.app/Contents/Info.plist` or `folder/Foo.app/Contents/Info.plist`: a macOS bundle's layout (not a `.app.dSYM`). */
export function isMacAppPlist(name: string): boolean {
  const parts = name.split('/');
  if (parts.length < 3 || parts.length > 4 || parts[parts.length - 1] !== 'Info.plist' || parts[parts.length - 2] !== 'Contents') return false;
  if (!parts[parts.length - 3].endsWith('.app')) return false;
  return parts.length === 3 || (!parts[0].endsWith('.app') && parts[0] !== '__MACOSX');
}

export function tooManyApps(): MalformedBuildError {
  return new MalformedBuildError(`The archive holds more than ${MAX_APP_CANDIDATES} app bundles; upload one`);
}

/**
 * The one app among `candidates` (archive order): test runners (by folder name, or a `.xctrunner`
 * bundle id) and bundles that say they are not apps (`CFBundlePackageType` other than APPL) are
 * skipped; two or more left is a 400 naming them. The app must be built for the simulator: a device
 * build gets the .ipa's message, a macOS app is named as one (also when only `macApp`, a
 * `Foo.app/Contents/Info.plist`, was found). `noApp` is the refusal when there is nothing at all.
 */
export async function chooseApp(
  candidates: AppCandidate[],
  macApp: AppCandidate | null,
  noApp: () => MalformedBuildError,
): Promise<ChosenApp> {
  const skipped = candidates.filter((c) => isTestRunnerPlist(c.plistPath)).map((c) => `${bundleFolderOf(c.plistPath)} (a UI test runner)`);
  const toRead = candidates.filter((c) => !isTestRunnerPlist(c.plistPath));
  if (toRead.length > MAX_APP_CANDIDATES) throw tooManyApps();
  const infos = await readCandidates(toRead);
  const apps: ChosenApp[] = [];
  toRead.forEach((candidate, i) => {
    const info = infos[i];
    const described = `${bundleFolderOf(candidate.plistPath)} (${info.metadata.bundleId}`;
    if (info.metadata.bundleId.endsWith('.xctrunner')) skipped.push(`${described}, a UI test runner)`);
    else if (info.packageType && info.packageType !== 'APPL') skipped.push(`${described}, CFBundlePackageType ${info.packageType})`);
    else apps.push({ plistPath: candidate.plistPath, info });
  });
  if (apps.length > 1) {
    const names = apps.map((a) => `${bundleFolderOf(a.plistPath)} (${a.info.metadata.bundleId})`).join(', ');
    throw new MalformedBuildError(`The archive holds more than one app: ${names}; upload one`);
  }
  if (apps.length === 0) {
    if (macApp) throw await macOsApp(macApp);
    if (skipped.length === 0) throw noApp();
    throw new MalformedBuildError(`The archive holds no app, only ${skipped.join(', ')}; zip or tar the app's .app folder`);
  }
  const [app] = apps;
  const platform = platformOf(app);
  if (platform === 'macos') throw macOsMessage(bundleFolderOf(app.plistPath), app.info.metadata.bundleId);
  if (platform === 'device') throw new MalformedBuildError(DEVICE_BUILD_MESSAGE);
  return app;
}

async function readCandidates(candidates: AppCandidate[]): Promise<BundleInfo[]> {
  if (candidates.length === 0) return [];
  const plists = [];
  for (const c of candidates) plists.push({ bytes: await c.read(), bundleFolder: bundleFolderOf(c.plistPath) });
  return readBundleInfos(plists);
}

/**
 * Xcode writes `CFBundleSupportedPlatforms` (`iPhoneSimulator`, `iPhoneOS`, `MacOSX`) and
 * `DTPlatformName` into every bundle it builds. A simulator named anywhere is a simulator build;
 * macOS (or `LSMinimumSystemVersion`, which only macOS apps declare) is a macOS app; platforms that
 * name neither are a device build. A plist that declares none (hand-made) is taken as it is, unless
 * it sits in an .ipa's `Payload/` folder.
 */
function platformOf({ plistPath, info }: ChosenApp): 'simulator' | 'device' | 'macos' {
  const platforms = info.platforms.map((p) => p.toLowerCase());
  if (platforms.some((p) => p.includes('simulator'))) return 'simulator';
  if (platforms.includes('macosx') || info.macOsMinimum) return 'macos';
  if (platforms.length > 0 || plistPath.startsWith('Payload/')) return 'device';
  return 'simulator';
}

async function macOsApp(candidate: AppCandidate): Promise<MalformedBuildError> {
  const folder = bundleFolderOf(candidate.plistPath);
  // The layout already says macOS; the plist only names it, so an unreadable one still gets this answer.
  const [info] = await readCandidates([candidate]).catch(() => [null]);
  return macOsMessage(folder, info?.metadata.bundleId ?? null);
}

function macOsMessage(folder: string, bundleId: string | null): MalformedBuildError {
  const what = bundleId ? `${folder}, ${bundleId}` : folder;
  return new MalformedBuildError(`This is a macOS app (${what}); the relay takes iOS simulator builds and Android APKs`);
}
