import type { Schemas } from '../../api/client';
import { fileSize } from '../../ui/format';

type Comparison = Schemas['BuildComparison'];
type Flag = Schemas['ComparisonFlag'];
type Category = { category: string; name: string | null };

const CATEGORY_NAMES: Record<string, string> = {
  dex: 'Dex code',
  resources_table: 'Resources table',
  res: 'Resources (res/)',
  native: 'Native code',
  assets: 'Assets',
  manifest: 'Manifest',
  signature: 'Signature files',
  executable: 'Main executable',
  framework: 'Framework',
  asset_catalog: 'Asset catalog',
  resources: 'Other resources',
  extension: 'App extension',
  other: 'Other',
};

/** "Native code (arm64-v8a)", "Framework Payments.framework", "Dex code". */
export function categoryName({ category, name }: Category): string {
  const base = CATEGORY_NAMES[category] ?? category;
  if (!name) return base;
  return category === 'native' ? `${base} (${name})` : `${base} ${name}`;
}

/** "+8.1 %", "−3 %", "new" (nothing before). */
export function percentText(percent: number | null, delta: number): string {
  if (percent === null) return delta > 0 ? 'new' : '0 %';
  const rounded = Math.round(percent * 10) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded)} %`;
}

/** "+1.2 MB", "−40 KB". */
export function deltaText(delta: number): string {
  return `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${fileSize(Math.abs(delta))}`;
}

/** A flag as one short sentence a reviewer reads at a glance; the API's reason stays in the title. */
export function flagSentence(flag: Flag, comparison: Comparison): string {
  switch (flag.kind) {
    case 'new_permission':
      return `Adds permission ${flag.subject}${flag.watched ? ' (watched)' : ''}`;
    case 'abi_removed':
      return `Drops ABI ${flag.subject}`;
    case 'size_jump':
      return `Grows ${deltaText(comparison.size.file.delta)} (${percentText(comparison.size.file.percent, comparison.size.file.delta)})`;
    case 'min_sdk_raised':
      return `Raises the minimum SDK from ${comparison.min_sdk?.before} to ${comparison.min_sdk?.after}`;
    case 'min_os_raised':
      return `Raises the minimum iOS from ${comparison.minimum_os?.before} to ${comparison.minimum_os?.after}`;
    case 'signing_changed':
      return 'Signed with another certificate: updates over the earlier build will not install';
    case 'usage_description_added':
      return `Adds privacy usage description ${flag.subject}`;
    default:
      return flag.reason;
  }
}

/**
 * The categories that changed by at least `minPercent` of their size (or appeared, or went), as
 * "Native code (arm64-v8a) +8.1 %": the size story beside the flags. Largest change first.
 */
export function notableChanges(comparison: Comparison, minPercent = 5, max = 5): string[] {
  return comparison.categories
    .filter((c) => c.uncompressed.delta !== 0 && (c.uncompressed.percent === null || Math.abs(c.uncompressed.percent) >= minPercent))
    .slice(0, max)
    .map((c) => {
      if (c.uncompressed.after === 0) return `${categoryName(c)} removed (${deltaText(c.uncompressed.delta)})`;
      if (c.uncompressed.before === 0) return `${categoryName(c)} added (${deltaText(c.uncompressed.delta)})`;
      return `${categoryName(c)} ${percentText(c.uncompressed.percent, c.uncompressed.delta)} (${deltaText(c.uncompressed.delta)})`;
    });
}
