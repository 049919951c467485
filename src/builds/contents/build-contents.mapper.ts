import { ApiProperty } from '@nestjs/swagger';
import { isoWithMillis } from '../../common/time';
import { PLATFORMS, type Platform } from '../../app-catalogue/platform';
import { APP_PLATFORMS, type AppPlatform } from '../../app-catalogue/app.entity';
import type { RecentSize } from './build-contents.repository';
import type { EarlierBuilds, FoundContents } from './build-contents.service';
import { CONTENTS_CATEGORIES, type BuildContents, type CategorySize, type ContentsCategory, type EntrySize, type SizeTotals } from '../../inspection/build-contents';
import { SigningCertificateInfo } from './build-comparison';

export class ContentsTotals {
  @ApiProperty({ description: 'number of file entries' })
  count: number;
  @ApiProperty({ type: Number, nullable: true, description: 'bytes as stored in the archive; null for tarballs (compressed as a whole)' })
  compressed: number | null;
  @ApiProperty({ description: 'bytes once extracted' })
  uncompressed: number;
}

export class ContentsCategorySize extends ContentsTotals {
  @ApiProperty({
    enum: CONTENTS_CATEGORIES,
    description:
      'Android: dex, resources_table (resources.arsc), res, native (lib/<abi>/), assets, manifest, signature (META-INF signature files), other. ' +
      'iOS: executable, framework (each), asset_catalog (Assets.car), resources, extension (PlugIns/Extensions *.appex, each), other (outside the bundle)',
  })
  category: ContentsCategory;
  @ApiProperty({ type: String, nullable: true, description: 'the ABI of native, the bundle name of framework and extension; else null', example: 'arm64-v8a' })
  name: string | null;
}

export class ContentsEntry {
  @ApiProperty({ example: 'classes.dex' })
  path: string;
  @ApiProperty({ type: Number, nullable: true })
  compressed: number | null;
  @ApiProperty()
  uncompressed: number;
}

export class ContentsSigning {
  @ApiProperty({ enum: ['v1', 'v2', 'v3'], isArray: true })
  schemes: string[];
  @ApiProperty({ type: SigningCertificateInfo, nullable: true, description: 'the first signer: v3, else v2, else v1' })
  certificate: SigningCertificateInfo | null;
  @ApiProperty({ description: 'size of the APK Signing Block (not an entry; 0 without v2/v3)' })
  block_bytes: number;
}

export class ContentsFeature {
  @ApiProperty({ example: 'android.hardware.camera' })
  name: string;
  @ApiProperty()
  required: boolean;
}

export class AndroidContentsInfo {
  @ApiProperty({ type: String, nullable: true, example: '21' })
  min_sdk: string | null;
  @ApiProperty({ type: String, nullable: true, example: '34' })
  target_sdk: string | null;
  @ApiProperty({ type: [String], description: 'uses-permission (and -sdk-23), in manifest order' })
  permissions: string[];
  @ApiProperty({ type: [ContentsFeature], description: 'declared uses-feature (not the ones aapt implies)' })
  features: ContentsFeature[];
  @ApiProperty({ type: [String], example: ['arm64-v8a', 'x86_64'] })
  abis: string[];
  @ApiProperty({ type: ContentsSigning })
  signing: ContentsSigning;
}

export class IosContentsInfo {
  @ApiProperty({ type: String, nullable: true, example: '15.0', description: 'MinimumOSVersion' })
  minimum_os: string | null;
  @ApiProperty({ type: [String], example: ['Lib.framework'] })
  frameworks: string[];
  @ApiProperty({ type: [String], description: 'UIRequiredDeviceCapabilities' })
  required_device_capabilities: string[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'NS…UsageDescription keys and texts',
    example: { NSCameraUsageDescription: 'Scan receipts' },
  })
  usage_descriptions: Record<string, string>;
  @ApiProperty({ type: [String] })
  url_schemes: string[];
  @ApiProperty({ type: [String], example: ['Widget.appex'] })
  extensions: string[];
}

export class BuildContentsInfo {
  @ApiProperty({ enum: PLATFORMS })
  platform: Platform;
  @ApiProperty({ description: 'the uploaded file in bytes' })
  file_size: number;
  @ApiProperty({ type: ContentsTotals, description: 'the sum of the archive\'s file entries' })
  entries: ContentsTotals;
  @ApiProperty({ type: [ContentsCategorySize], description: 'adds up to entries; largest first' })
  breakdown: ContentsCategorySize[];
  @ApiProperty({ type: [ContentsEntry], description: 'the 100 largest entries (uncompressed), largest first' })
  largest_entries: ContentsEntry[];
  @ApiProperty({ description: 'true when largest_entries is every entry of the archive' })
  largest_entries_complete: boolean;
  @ApiProperty({ type: AndroidContentsInfo, nullable: true })
  android: AndroidContentsInfo | null;
  @ApiProperty({ type: IosContentsInfo, nullable: true })
  ios: IosContentsInfo | null;
  @ApiProperty({ type: [String], description: 'what could not be read (a bound exceeded, a part unreadable); the rest holds' })
  notes: string[];
}

export class BuildContentsResponse {
  @ApiProperty()
  build_id: number;
  @ApiProperty({ type: BuildContentsInfo, nullable: true, description: 'null when the contents cannot be read (see unavailable_reason)' })
  contents: BuildContentsInfo | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when the contents were read' })
  computed_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'why contents is null' })
  unavailable_reason: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'the build compare?to=previous compares with (same app and platform, uploaded just before); null for the first build, where compare answers 404',
  })
  previous_build_id: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'the build compare?to=last_done compares with (the latest Done one uploaded before); null when there is none, where compare answers 404',
  })
  last_done_build_id: number | null;
}

const totals = (t: SizeTotals): ContentsTotals => ({ count: t.count, compressed: t.compressed, uncompressed: t.uncompressed });
const category = (c: CategorySize): ContentsCategorySize => ({ category: c.category, name: c.name, ...totals(c) });
const entry = (e: EntrySize): ContentsEntry => ({ path: e.path, compressed: e.compressed, uncompressed: e.uncompressed });

export function toContentsInfo(c: BuildContents): BuildContentsInfo {
  return {
    platform: c.platform,
    file_size: c.fileSize,
    entries: totals(c.entries),
    breakdown: c.breakdown.map(category),
    largest_entries: c.largestEntries.map(entry),
    largest_entries_complete: c.largestEntriesComplete,
    android: c.android && {
      min_sdk: c.android.minSdk,
      target_sdk: c.android.targetSdk,
      permissions: c.android.permissions,
      features: c.android.features.map((f) => ({ name: f.name, required: f.required })),
      abis: c.android.abis,
      signing: {
        schemes: c.android.signing.schemes,
        certificate: c.android.signing.certificate && { ...c.android.signing.certificate },
        block_bytes: c.android.signing.blockBytes,
      },
    },
    ios: c.ios && {
      minimum_os: c.ios.minimumOs,
      frameworks: c.ios.frameworks,
      required_device_capabilities: c.ios.requiredDeviceCapabilities,
      usage_descriptions: c.ios.usageDescriptions,
      url_schemes: c.ios.urlSchemes,
      extensions: c.ios.extensions,
    },
    notes: c.notes,
  };
}

export function toContentsResponse(buildId: number, { found, earlier }: { found: FoundContents; earlier: EarlierBuilds }): BuildContentsResponse {
  const ids = { previous_build_id: earlier.previousId, last_done_build_id: earlier.lastDoneId };
  if ('reason' in found) return { build_id: buildId, contents: null, computed_at: null, unavailable_reason: found.reason, ...ids };
  return { build_id: buildId, contents: toContentsInfo(found.contents), computed_at: isoWithMillis(found.computedAt), unavailable_reason: null, ...ids };
}

/** One build of GET /apps/:id/sizes. */
export class AppSizePoint {
  @ApiProperty()
  build_id: number;
  @ApiProperty({ enum: PLATFORMS })
  platform: Platform;
  @ApiProperty({ type: String, nullable: true })
  version_name: string | null;
  @ApiProperty({ type: String, nullable: true })
  build_number: string | null;
  @ApiProperty({ format: 'date-time' })
  uploaded_at: string;
  @ApiProperty({ description: 'bytes of the uploaded file' })
  file_size: number;
  @ApiProperty({ description: 'flags stored at upload against the build before it (0: none, or not compared)' })
  flag_count: number;
}

/** GET /apps/:id/sizes: the app's last builds on its platform, oldest first. */
export class AppSizes {
  @ApiProperty()
  app_id: number;
  @ApiProperty({ enum: APP_PLATFORMS, description: "the app's platform: its builds on it (both: all its builds)" })
  platform: AppPlatform;
  @ApiProperty({ type: [AppSizePoint] })
  items: AppSizePoint[];
}

export function toAppSizes(appId: number, platform: AppPlatform, builds: RecentSize[]): AppSizes {
  return {
    app_id: appId,
    platform,
    items: builds.map((b) => ({
      build_id: b.id,
      platform: b.platform,
      version_name: b.versionName,
      build_number: b.buildNumber,
      uploaded_at: isoWithMillis(b.uploadedAt),
      file_size: b.fileSize,
      flag_count: b.flagCount,
    })),
  };
}
