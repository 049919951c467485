import { ApiProperty } from '@nestjs/swagger';
import { BUILD_STATUSES, type BuildStatus } from '../build-status';
import { CONTENTS_CATEGORIES, type BuildContents, type SigningCertificate } from '../../inspection/build-contents';
import type { CompareSettings } from './compare-settings';

/** How many grown or new entries a comparison names. */
export const GROWN_ENTRIES = 20;

export const FLAG_KINDS = [
  'new_permission',
  'size_jump',
  'min_sdk_raised',
  'min_os_raised',
  'abi_removed',
  'signing_changed',
  'usage_description_added',
] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];

/** A signer's certificate, as GET /builds/:id/contents and the comparison show it. */
export class SigningCertificateInfo {
  @ApiProperty({ description: 'lowercase hex SHA-256 of the certificate (as apksigner --print-certs shows it)' })
  sha256: string;
  @ApiProperty({ example: 'CN=Android Debug, O=Android, C=US' })
  subject: string;
}

export class SizeDelta {
  @ApiProperty()
  before: number;
  @ApiProperty()
  after: number;
  @ApiProperty({ description: 'after − before (negative when it shrank)' })
  delta: number;
  @ApiProperty({ type: Number, nullable: true, description: 'delta as a percentage of before, 2 decimals; null when before is 0' })
  percent: number | null;
}

export class SizeComparison {
  @ApiProperty({ type: SizeDelta, description: 'the uploaded files' })
  file: SizeDelta;
  @ApiProperty({ type: SizeDelta, description: 'the archives\' entries, uncompressed' })
  uncompressed: SizeDelta;
  @ApiProperty({ type: SizeDelta, nullable: true, description: 'the entries as stored; null when either build is a tarball' })
  compressed: SizeDelta | null;
}

export class CategoryDelta {
  @ApiProperty({ enum: CONTENTS_CATEGORIES })
  category: string;
  @ApiProperty({ type: String, nullable: true })
  name: string | null;
  @ApiProperty({ type: SizeDelta })
  uncompressed: SizeDelta;
  @ApiProperty({ type: SizeDelta, nullable: true })
  compressed: SizeDelta | null;
}

export class EntryDelta {
  @ApiProperty()
  path: string;
  @ApiProperty({
    enum: ['added', 'grew', 'entered_top'],
    description:
      'added: not in the earlier build; grew: larger than in it; entered_top: not among the earlier build\'s 100 largest entries (so new, or grown from below them)',
  })
  change: 'added' | 'grew' | 'entered_top';
  @ApiProperty({ type: Number, nullable: true, description: 'uncompressed bytes before; null for added and entered_top' })
  before: number | null;
  @ApiProperty()
  after: number;
  @ApiProperty({ description: 'after − before (after when before is null)' })
  delta: number;
}

export class ListChange {
  @ApiProperty({ type: [String] })
  added: string[];
  @ApiProperty({ type: [String] })
  removed: string[];
}

export class ValueChange {
  @ApiProperty({ type: String, nullable: true })
  before: string | null;
  @ApiProperty({ type: String, nullable: true })
  after: string | null;
  @ApiProperty()
  changed: boolean;
}

export class SigningChange {
  @ApiProperty({ description: 'the signer certificate differs (one of them unsigned or unreadable included)' })
  changed: boolean;
  @ApiProperty({ type: SigningCertificateInfo, nullable: true })
  before: SigningCertificate | null;
  @ApiProperty({ type: SigningCertificateInfo, nullable: true })
  after: SigningCertificate | null;
  @ApiProperty({ type: ListChange, description: 'signing schemes (v1, v2, v3) added and removed' })
  schemes: ListChange;
}

export class ComparisonFlag {
  @ApiProperty({ enum: FLAG_KINDS })
  kind: FlagKind;
  @ApiProperty({ example: 'New permission android.permission.CAMERA' })
  reason: string;
  @ApiProperty({ type: String, nullable: true, description: 'what the flag is about: a permission, an ABI, a usage description key; else null' })
  subject: string | null;
  @ApiProperty({ description: 'a new permission on the app\'s watch-list' })
  watched: boolean;
}

export class ComparedBuildRef {
  @ApiProperty()
  id: number;
  @ApiProperty({ type: String, nullable: true })
  version_name: string | null;
  @ApiProperty({ type: String, nullable: true })
  build_number: string | null;
  @ApiProperty({ enum: BUILD_STATUSES, nullable: true })
  status_label: BuildStatus | null;
  @ApiProperty({ format: 'date-time' })
  uploaded_at: string;
}

/** What changed from `compared_with` (earlier) to `build`; Android-only and iOS-only parts are null on the other platform. */
export class BuildComparison {
  @ApiProperty({ type: ComparedBuildRef })
  build: ComparedBuildRef;
  @ApiProperty({ type: ComparedBuildRef, description: 'the build it is compared with (before)' })
  compared_with: ComparedBuildRef;
  @ApiProperty({ type: [ComparisonFlag], description: 'what a reviewer should look at, with reasons; empty when nothing is flagged' })
  flags: ComparisonFlag[];
  @ApiProperty({ type: SizeComparison })
  size: SizeComparison;
  @ApiProperty({ type: [CategoryDelta], description: 'every category of either build, largest change first' })
  categories: CategoryDelta[];
  @ApiProperty({ type: [EntryDelta], description: `the ${GROWN_ENTRIES} entries that grew most or appeared` })
  grown_entries: EntryDelta[];
  @ApiProperty({ type: ListChange })
  permissions: ListChange;
  @ApiProperty({ type: ListChange, description: 'feature names' })
  features: ListChange;
  @ApiProperty({ type: ListChange })
  abis: ListChange;
  @ApiProperty({ type: ValueChange, nullable: true })
  min_sdk: ValueChange | null;
  @ApiProperty({ type: ValueChange, nullable: true })
  target_sdk: ValueChange | null;
  @ApiProperty({ type: SigningChange, nullable: true, description: 'Android only' })
  signing: SigningChange | null;
  @ApiProperty({ type: ValueChange, nullable: true })
  minimum_os: ValueChange | null;
  @ApiProperty({ type: ListChange })
  frameworks: ListChange;
  @ApiProperty({ type: ListChange })
  extensions: ListChange;
  @ApiProperty({ type: ListChange, description: 'NS…UsageDescription keys' })
  usage_descriptions: ListChange;
  @ApiProperty({ type: ListChange })
  required_device_capabilities: ListChange;
  @ApiProperty({ type: ListChange })
  url_schemes: ListChange;
}

export type ComparisonBody = Omit<BuildComparison, 'build' | 'compared_with'>;

/** Compares two builds' contents (`before` the earlier) under an app's settings: a pure function of the three. */
export function compareContents(before: BuildContents, after: BuildContents, settings: CompareSettings): ComparisonBody {
  const a = before.android;
  const b = after.android;
  const ia = before.ios;
  const ib = after.ios;
  const size: SizeComparison = {
    file: delta(before.fileSize, after.fileSize),
    uncompressed: delta(before.entries.uncompressed, after.entries.uncompressed),
    compressed:
      before.entries.compressed === null || after.entries.compressed === null ? null : delta(before.entries.compressed, after.entries.compressed),
  };
  const body: ComparisonBody = {
    flags: [],
    size,
    categories: categoryDeltas(before, after),
    grown_entries: grownEntries(before, after),
    permissions: listChange(a?.permissions, b?.permissions),
    features: listChange(a?.features.map((f) => f.name), b?.features.map((f) => f.name)),
    abis: listChange(a?.abis, b?.abis),
    min_sdk: a && b ? valueChange(a.minSdk, b.minSdk) : null,
    target_sdk: a && b ? valueChange(a.targetSdk, b.targetSdk) : null,
    signing:
      a && b
        ? {
            changed: a.signing.certificate?.sha256 !== b.signing.certificate?.sha256,
            before: a.signing.certificate,
            after: b.signing.certificate,
            schemes: listChange(a.signing.schemes, b.signing.schemes),
          }
        : null,
    minimum_os: ia && ib ? valueChange(ia.minimumOs, ib.minimumOs) : null,
    frameworks: listChange(ia?.frameworks, ib?.frameworks),
    extensions: listChange(ia?.extensions, ib?.extensions),
    usage_descriptions: listChange(ia && Object.keys(ia.usageDescriptions), ib && Object.keys(ib.usageDescriptions)),
    required_device_capabilities: listChange(ia?.requiredDeviceCapabilities, ib?.requiredDeviceCapabilities),
    url_schemes: listChange(ia?.urlSchemes, ib?.urlSchemes),
  };
  body.flags = flagsOf(body, settings);
  return body;
}

/** The flags, in FLAG_KINDS order; each names what it is about. */
function flagsOf(c: ComparisonBody, settings: CompareSettings): ComparisonFlag[] {
  const flags: ComparisonFlag[] = [];
  const flag = (kind: FlagKind, reason: string, subject: string | null = null, watched = false) => flags.push({ kind, reason, subject, watched });
  const watched = new Set(settings.watched_permissions);
  for (const permission of c.permissions.added) {
    const isWatched = watched.has(permission);
    if (isWatched || settings.flag_every_new_permission) {
      flag('new_permission', `New permission ${permission}${isWatched ? ' (on the watch-list)' : ''}`, permission, isWatched);
    }
  }
  const file = c.size.file;
  const byPercent = file.percent !== null && file.delta > 0 && file.percent >= settings.size_jump_percent;
  const byBytes = settings.size_jump_bytes !== null && file.delta >= settings.size_jump_bytes;
  if (byPercent || byBytes) {
    const threshold = byPercent ? `${settings.size_jump_percent} %` : `${settings.size_jump_bytes} bytes`;
    flag('size_jump', `Grew by ${file.delta} bytes (${file.percent ?? '∞'} %), at or over the threshold of ${threshold}`);
  }
  if (c.min_sdk && isRaised(c.min_sdk)) flag('min_sdk_raised', `Minimum SDK raised from ${c.min_sdk.before} to ${c.min_sdk.after}`);
  if (c.minimum_os && isRaised(c.minimum_os)) flag('min_os_raised', `Minimum iOS raised from ${c.minimum_os.before} to ${c.minimum_os.after}`);
  for (const abi of c.abis.removed) flag('abi_removed', `ABI ${abi} removed: devices that need it can no longer install the app`, abi);
  if (c.signing?.changed) {
    const sha = (cert: SigningCertificate | null) => (cert ? `${cert.subject} (SHA-256 ${cert.sha256.slice(0, 16)}…)` : 'none');
    flag('signing_changed', `Signing certificate changed from ${sha(c.signing.before)} to ${sha(c.signing.after)}: updates over the earlier build fail to install`);
  }
  for (const key of c.usage_descriptions.added) flag('usage_description_added', `New privacy usage description ${key}`, key);
  return flags;
}

function delta(before: number, after: number): SizeDelta {
  return { before, after, delta: after - before, percent: before === 0 ? null : Math.round(((after - before) / before) * 10000) / 100 };
}

function listChange(before: string[] | null | undefined, after: string[] | null | undefined): ListChange {
  const was = new Set(before ?? []);
  const is = new Set(after ?? []);
  return { added: [...is].filter((x) => !was.has(x)), removed: [...was].filter((x) => !is.has(x)) };
}

function valueChange(before: string | null, after: string | null): ValueChange {
  return { before, after, changed: before !== after };
}

/** A higher version: numeric SDK levels and dotted OS versions compared part by part (a codename is not compared). */
function isRaised(change: ValueChange): boolean {
  if (!change.before || !change.after || !/^\d+(\.\d+)*$/.test(change.before) || !/^\d+(\.\d+)*$/.test(change.after)) return false;
  const was = change.before.split('.').map(Number);
  const is = change.after.split('.').map(Number);
  for (let i = 0; i < Math.max(was.length, is.length); i++) {
    if ((is[i] ?? 0) !== (was[i] ?? 0)) return (is[i] ?? 0) > (was[i] ?? 0);
  }
  return false;
}

function categoryDeltas(before: BuildContents, after: BuildContents): CategoryDelta[] {
  const keyOf = (c: { category: string; name: string | null }) => `${c.category}\0${c.name ?? ''}`;
  const was = new Map(before.breakdown.map((c) => [keyOf(c), c]));
  const is = new Map(after.breakdown.map((c) => [keyOf(c), c]));
  const keys = [...new Set([...is.keys(), ...was.keys()])];
  return keys
    .map((key) => {
      const w = was.get(key);
      const n = is.get(key);
      const { category, name } = (n ?? w)!;
      const compressedKnown = before.entries.compressed !== null && after.entries.compressed !== null;
      return {
        category,
        name,
        uncompressed: delta(w?.uncompressed ?? 0, n?.uncompressed ?? 0),
        compressed: compressedKnown ? delta(w?.compressed ?? 0, n?.compressed ?? 0) : null,
      };
    })
    .sort((x, y) => Math.abs(y.uncompressed.delta) - Math.abs(x.uncompressed.delta) || x.category.localeCompare(y.category));
}

function grownEntries(before: BuildContents, after: BuildContents): EntryDelta[] {
  const was = new Map(before.largestEntries.map((e) => [e.path, e.uncompressed]));
  const grown: EntryDelta[] = [];
  for (const entry of after.largestEntries) {
    const old = was.get(entry.path);
    if (old !== undefined && entry.uncompressed <= old) continue;
    const change = old !== undefined ? 'grew' : before.largestEntriesComplete ? 'added' : 'entered_top';
    grown.push({ path: entry.path, change, before: old ?? null, after: entry.uncompressed, delta: entry.uncompressed - (old ?? 0) });
  }
  return grown.sort((x, y) => y.delta - x.delta || x.path.localeCompare(y.path)).slice(0, GROWN_ENTRIES);
}
