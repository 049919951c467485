import { isTestRunnerFolder } from './app-choice';
import { BuildContents, CONTENTS_FORMAT, ContentsTally, IosCategory } from './build-contents';
import type { BundleInfo } from './info-plist';

/** Files at the bundle's top level without an extension, held until the plist says which is the executable. */
const MAX_DEFERRED = 1000;

type Placed = { category: IosCategory; name: string | null } | 'maybe-executable';

/**
 * The category of an entry of an iOS archive: inside `Name.app/` (at the top or one folder down, as
 * the bundle is accepted) by where it sits in the bundle; anything outside a bundle is `other`, and so
 * is a UI-test runner's bundle beside the app (a whole Release-iphonesimulator/ folder, app-choice.ts):
 * its XCTest.framework is not the app's.
 */
export function iosCategory(path: string): Placed {
  const parts = path.split('/');
  const at = parts[0].endsWith('.app') ? 0 : parts.length > 1 && parts[1].endsWith('.app') && parts[0] !== '__MACOSX' ? 1 : -1;
  if (at < 0 || isTestRunnerFolder(parts[at])) return { category: 'other', name: null };
  const rel = parts.slice(at + 1);
  if (rel.length >= 2 && rel[0] === 'Frameworks') return { category: 'framework', name: rel[1] };
  if (rel.length >= 2 && (rel[0] === 'PlugIns' || rel[0] === 'Extensions') && rel[1].endsWith('.appex')) {
    return { category: 'extension', name: rel[1] };
  }
  if (rel[rel.length - 1] === 'Assets.car') return { category: 'asset_catalog', name: null };
  if (rel.length === 1 && !rel[0].includes('.')) return 'maybe-executable';
  return { category: 'resources', name: null };
}

/** Adds up an iOS archive's entries during the pass that finds its Info.plist; `finish` once the plist is read. */
export class IosContentsReader {
  private readonly tally: ContentsTally;
  private readonly deferred: { path: string; compressed: number | null; uncompressed: number }[] = [];

  constructor(
    private readonly fileSize: number,
    private readonly compressedKnown: boolean,
  ) {
    this.tally = new ContentsTally(compressedKnown);
  }

  visit(path: string, compressed: number | null, uncompressed: number): void {
    const placed = iosCategory(path);
    if (placed === 'maybe-executable' && this.deferred.length < MAX_DEFERRED) {
      this.deferred.push({ path, compressed, uncompressed });
      return;
    }
    const { category, name } = placed === 'maybe-executable' ? { category: 'resources' as const, name: null } : placed;
    this.tally.add(category, name, path, compressed, uncompressed);
  }

  finish(info: BundleInfo, bundleFolder: string): BuildContents {
    const executable = info.executable && `${bundleFolder}${info.executable}`;
    for (const entry of this.deferred) {
      this.tally.add(entry.path === executable ? 'executable' : 'resources', null, entry.path, entry.compressed, entry.uncompressed);
    }
    const counted = this.tally.result();
    const named = (category: IosCategory) =>
      counted.breakdown.filter((c) => c.category === category && c.name).map((c) => c.name as string).sort();
    return {
      format: CONTENTS_FORMAT,
      platform: 'ios',
      fileSize: this.fileSize,
      ...counted,
      android: null,
      ios: {
        minimumOs: info.details.minimumOs,
        frameworks: named('framework'),
        requiredDeviceCapabilities: info.details.requiredDeviceCapabilities,
        usageDescriptions: info.details.usageDescriptions,
        urlSchemes: info.details.urlSchemes,
        extensions: named('extension'),
      },
      notes: this.compressedKnown ? [] : ['A tarball is compressed as a whole: sizes are uncompressed only'],
    };
  }
}
