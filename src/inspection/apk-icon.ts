import { adaptiveIconLayers, Bitmap, composeAdaptiveIcon, decodeLayer } from './adaptive-icon';
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
/** A compiled `<adaptive-icon>` is a few hundred bytes. */
const MAX_ADAPTIVE_XML_BYTES = 64 * 1024;
/** A 432 px layer PNG is well under this (the decoded size is bounded by MAX_LAYER_SIDE). */
const MAX_LAYER_BYTES = 1024 * 1024;

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
 * The launcher icon of an icon resource. First its best-density bitmap: PNG or WebP files by
 * density, highest first (xxxhdpi 640 down to ldpi; the default configuration counts as mdpi,
 * nodpi last). So an adaptive icon (an `<adaptive-icon>` XML under anydpi-v26) with the bitmap
 * the same resource defines for older Android versions (every APK with minSdk below 26) gets that
 * bitmap. Only when there is none is the adaptive icon composed: its foreground PNG over its
 * background colour or PNG, cropped to the visible 72 of 108 dp (adaptive-icon.ts); a WebP or
 * vector layer leaves the build without an icon (docs/builds.md). Nine-patches are skipped; a file
 * that is missing, too large or not an image moves on to the next density. `entries` are the
 * archive's PNG/WebP entries under res/ and its XML entries under anydpi folders, by name.
 */
export async function readApkIcon(
  zip: ZipArchive,
  entries: Map<string, ZipEntryRef>,
  table: ResourceTable,
  iconId: number,
): Promise<BuildIcon | null> {
  const files = table.resolveFiles(iconId);
  for (const candidate of bitmapCandidates(files)) {
    const data = await readBounded(zip, entries, candidate.path, MAX_ICON_BYTES);
    const icon = data && asBuildIcon(data);
    if (icon) return icon;
  }
  for (const xml of files.filter((f) => f.density === ANY_DPI && f.path.endsWith('.xml'))) {
    const icon = await composedIcon(zip, entries, table, xml.path);
    if (icon) return icon;
  }
  return null;
}

/** An adaptive icon's XML composed into a PNG, when its foreground is a PNG and its background a colour or PNG. */
async function composedIcon(
  zip: ZipArchive,
  entries: Map<string, ZipEntryRef>,
  table: ResourceTable,
  xmlPath: string,
): Promise<BuildIcon | null> {
  const xml = await readBounded(zip, entries, xmlPath, MAX_ADAPTIVE_XML_BYTES);
  const layers = xml && adaptiveIconLayers(xml);
  if (!layers?.foreground || !layers.background || !('resourceId' in layers.foreground)) return null;
  const foreground = await layerBitmap(zip, entries, table, layers.foreground.resourceId);
  if (!foreground) return null;
  let background: { color: number } | Bitmap | null = null;
  if ('color' in layers.background) background = layers.background;
  else {
    const color = table.resolveColor(layers.background.resourceId);
    background = color !== null ? { color } : await layerBitmap(zip, entries, table, layers.background.resourceId);
  }
  if (!background) return null;
  const png = composeAdaptiveIcon(background, foreground);
  return png ? { type: 'png', data: png } : null;
}

/** A layer resource's best-density PNG, decoded (WebP and vector layers are not). */
async function layerBitmap(zip: ZipArchive, entries: Map<string, ZipEntryRef>, table: ResourceTable, id: number): Promise<Bitmap | null> {
  for (const candidate of bitmapCandidates(table.resolveFiles(id)).filter((f) => /\.png$/i.test(f.path))) {
    const data = await readBounded(zip, entries, candidate.path, MAX_LAYER_BYTES);
    const bitmap = data && decodeLayer(data);
    if (bitmap) return bitmap;
  }
  return null;
}

/** An entry's bytes when it exists and is at most `limit` bytes; null otherwise (or when unreadable). */
async function readBounded(zip: ZipArchive, entries: Map<string, ZipEntryRef>, path: string, limit: number): Promise<Buffer | null> {
  const ref = entries.get(path);
  if (!ref || ref.entry.uncompressedSize > limit) return null;
  try {
    return await zip.read(ref, limit, path);
  } catch (err) {
    if (err instanceof MalformedBuildError) return null;
    throw err;
  }
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
