import type { Platform } from '../app-catalogue/platform';
import type { BuildContents } from './build-contents';
import type { BuildIcon } from './build-icon';

/** What the relay reads out of an uploaded build (spec §2 Build: name, bundle_id, version_name, build_number). */
export interface BuildMetadata {
  platform: Platform;
  bundleId: string;
  /** App name shown for the build and used when its app is created. */
  name: string;
  versionName: string | null;
  buildNumber: string | null;
  /** The launcher icon, when the build has one the relay can read (absent = none). */
  icon?: BuildIcon | null;
  /** What the build holds (docs/builds.md "Contents and comparison"); absent when not read. */
  contents?: BuildContents | null;
}

/** Longest value kept for a metadata string (longer ones are cut, not refused). */
export const METADATA_MAX_LENGTH = 200;

export function cleanMetadataString(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text ? text.slice(0, METADATA_MAX_LENGTH) : null;
}
