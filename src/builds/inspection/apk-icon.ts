import type { ResourceFile, ResourceTable } from './arsc';
import { decodeBinaryXml } from './binary-xml';
import { asBuildIcon, BuildIcon, MAX_ICON_BYTES } from './build-icon';
import { MalformedBuildError } from './malformed-build.error';
import { ValueType } from './res-chunks';
import type { ZipArchive, ZipEntryRef } from './zip-archive';

/** android.R.attr.icon and android.R.attr.roundIcon. */
const ATTR_ICON = 0x01010002;
const ATTR_ROUND_ICON = 0x0101052c;
const ANY_DPI = 0xfffe;
const NO_DPI = 0xffff;
/** Densities tried at most, best first (there are seven real ones). */
const MAX_CANDIDATES = 8;

/**
 * The launcher icon's resource id: `<application android:icon>`, else `android:roundIcon`. Null
 * when the manifest names none (or names a literal instead of a resource).
 */
export function launcherIconId(manifest: Buffer): number | null {
  const application = decodeBinaryXml(manifest).find((e) => e.name === 'application' && e.depth === 1);
  for (const id of [ATTR_ICON, ATTR_ROUND_ICON]) {
    const found = application?.attributes.find((a) => a.resourceId === id);
    if (found && (found.type === ValueType.Reference || found.type === ValueType.DynamicReference) && found.data !== 0) {
      return found.data;
    }
  }
  return null;
}

/**
 * The best-density bitmap of an icon resource: its PNG or WebP files by density, highest first
 * (xxxhdpi 640 down to ldpi; the default configuration counts as mdpi, nodpi last). An adaptive
 * icon (an `<adaptive-icon>` XML under anydpi-v26) is not composed: the bitmap the same resource
 * defines for older Android versions is used, which every APK with minSdk below 26 has; an APK
 * whose icon exists only as an adaptive XML gets no icon (docs/builds.md). Nine-patches are skipped.
 * A file that is missing, too large or not an image moves on to the next density. `bitmaps` are
 * the archive's PNG/WebP entries under res/, by name.
 */
export async function readApkIcon(
  zip: ZipArchive,
  bitmaps: Map<string, ZipEntryRef>,
  table: ResourceTable,
  iconId: number,
): Promise<BuildIcon | null> {
  for (const candidate of bitmapCandidates(table.resolveFiles(iconId))) {
    const ref = bitmaps.get(candidate.path);
    if (!ref || ref.entry.uncompressedSize > MAX_ICON_BYTES) continue;
    try {
      const icon = asBuildIcon(await zip.read(ref, MAX_ICON_BYTES, candidate.path));
      if (icon) return icon;
    } catch (err) {
      if (!(err instanceof MalformedBuildError)) throw err;
    }
  }
  return null;
}

function bitmapCandidates(files: ResourceFile[]): ResourceFile[] {
  const seen = new Set<string>();
  return files
    .filter((f) => /\.(png|webp)$/i.test(f.path) && !/\.9\.png$/i.test(f.path) && f.density !== ANY_DPI)
    .filter((f) => !seen.has(f.path) && seen.add(f.path))
    .sort((a, b) => rank(b.density) - rank(a.density))
    .slice(0, MAX_CANDIDATES);
}

/** Higher is better: real densities by value, the default configuration as mdpi (160), nodpi last. */
function rank(density: number): number {
  if (density === NO_DPI) return 1;
  return density === 0 ? 160 : density;
}
