import type { Platform } from '../app-catalogue/platform';

/**
 * What a build holds, read at upload beside its metadata (docs/builds.md "Contents and comparison").
 * Stored as JSON (build_contents.data) in this shape; `CONTENTS_FORMAT` is bumped when it changes so
 * older rows can be told apart.
 */
export const CONTENTS_FORMAT = 1;

/** How many of the largest entries are kept per build (what a comparison can name as grown or new). */
export const LARGEST_ENTRIES = 100;

export type AndroidCategory = 'dex' | 'resources_table' | 'res' | 'native' | 'assets' | 'manifest' | 'signature' | 'other';
export type IosCategory = 'executable' | 'framework' | 'asset_catalog' | 'resources' | 'extension' | 'other';
export type ContentsCategory = AndroidCategory | IosCategory;

/** Every category, in the order the API documents them (Android's, then iOS's; `other` once). */
export const CONTENTS_CATEGORIES: ContentsCategory[] = [
  'dex', 'resources_table', 'res', 'native', 'assets', 'manifest', 'signature',
  'executable', 'framework', 'asset_catalog', 'resources', 'extension', 'other',
];

/** Bytes of a group of entries; `compressed` is null where the archive does not say (tarballs). */
export interface SizeTotals {
  count: number;
  compressed: number | null;
  uncompressed: number;
}

export interface CategorySize extends SizeTotals {
  category: ContentsCategory;
  /** The ABI of `native`, the bundle name of `framework` and `extension`; null for the others. */
  name: string | null;
}

export interface EntrySize {
  path: string;
  compressed: number | null;
  uncompressed: number;
}

export interface AndroidFeature {
  name: string;
  required: boolean;
}

export interface SigningCertificate {
  /** Lowercase hex SHA-256 of the certificate's DER, as `apksigner --print-certs` prints it. */
  sha256: string;
  /** RFC 2253 order, most specific first (`CN=…, O=…, C=…`), as apksigner prints it. */
  subject: string;
}

export type SigningScheme = 'v1' | 'v2' | 'v3';

export interface AndroidContents {
  minSdk: string | null;
  targetSdk: string | null;
  permissions: string[];
  features: AndroidFeature[];
  abis: string[];
  signing: { schemes: SigningScheme[]; certificate: SigningCertificate | null; blockBytes: number };
}

export interface IosContents {
  minimumOs: string | null;
  frameworks: string[];
  requiredDeviceCapabilities: string[];
  /** NS…UsageDescription keys with their texts. */
  usageDescriptions: Record<string, string>;
  urlSchemes: string[];
  extensions: string[];
}

export interface BuildContents {
  format: typeof CONTENTS_FORMAT;
  platform: Platform;
  fileSize: number;
  entries: SizeTotals;
  breakdown: CategorySize[];
  largestEntries: EntrySize[];
  /** True when the archive has no more entries than LARGEST_ENTRIES (the list is every entry). */
  largestEntriesComplete: boolean;
  android: AndroidContents | null;
  ios: IosContents | null;
  /** What could not be read (a bound exceeded, a part unreadable); the rest is still true. */
  notes: string[];
}

/**
 * Adds entries up by category and keeps the largest ones, in bounded memory whatever the entry
 * count (one record per category, LARGEST_ENTRIES records).
 */
export class ContentsTally {
  private readonly groups = new Map<string, CategorySize>();
  private readonly largest: EntrySize[] = [];
  readonly totals: SizeTotals;
  private entryCount = 0;

  constructor(private readonly compressedKnown: boolean) {
    this.totals = { count: 0, compressed: compressedKnown ? 0 : null, uncompressed: 0 };
  }

  add(category: ContentsCategory, name: string | null, path: string, compressed: number | null, uncompressed: number): void {
    const key = `${category}\0${name ?? ''}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { category, name, count: 0, compressed: this.compressedKnown ? 0 : null, uncompressed: 0 };
      this.groups.set(key, group);
    }
    for (const totals of [group, this.totals]) {
      totals.count++;
      totals.uncompressed += uncompressed;
      if (totals.compressed !== null) totals.compressed += compressed ?? 0;
    }
    this.entryCount++;
    this.keepIfLarge({ path, compressed: this.compressedKnown ? compressed : null, uncompressed });
  }

  private keepIfLarge(entry: EntrySize): void {
    const list = this.largest;
    if (list.length === LARGEST_ENTRIES && entry.uncompressed <= list[list.length - 1].uncompressed) return;
    let at = list.length;
    while (at > 0 && list[at - 1].uncompressed < entry.uncompressed) at--;
    list.splice(at, 0, entry);
    if (list.length > LARGEST_ENTRIES) list.pop();
  }

  /** The breakdown, largest category first, and the kept entries. */
  result(): Pick<BuildContents, 'entries' | 'breakdown' | 'largestEntries' | 'largestEntriesComplete'> {
    return {
      entries: { ...this.totals },
      breakdown: [...this.groups.values()].sort((a, b) => b.uncompressed - a.uncompressed || a.category.localeCompare(b.category)),
      largestEntries: [...this.largest],
      largestEntriesComplete: this.entryCount <= LARGEST_ENTRIES,
    };
  }
}

/** Distinct values in first-seen order, at most `max`. */
export function distinct(values: Iterable<string>, max = 1000): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.size >= max) break;
    seen.add(value);
  }
  return [...seen];
}
