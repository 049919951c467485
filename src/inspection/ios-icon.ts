import { asBuildIcon, BuildIcon, MAX_ICON_BYTES } from './build-icon';

/** Top-level PNGs of a bundle kept while reading a tarball (a bundle has a handful of icon sizes). */
export const MAX_BUNDLE_PNGS = 64;
export const MAX_BUNDLE_PNG_BYTES = 4 * 1024 * 1024;

/** `Foo.app/x.png` or `folder/Foo.app/x.png`: a PNG at the top level of a bundle at an accepted depth. */
export function isBundleRootPng(name: string): boolean {
  return /^(?:[^/]+\/)?[^/]+\.app\/[^/]+\.png$/i.test(name) && !name.startsWith('__MACOSX/');
}

/**
 * The files of the bundle folder that the plist's icon names stand for: `AppIcon60x60` is
 * `AppIcon60x60.png`, `AppIcon60x60@2x.png`, `AppIcon60x60@3x~ipad.png`…; names already ending in
 * .png are taken as they are. Best first: names in plist order, higher scale first.
 */
export function iconFilesFor(iconNames: string[], files: string[]): string[] {
  const found: string[] = [];
  for (const iconName of iconNames) {
    const base = iconName.replace(/\.png$/i, '');
    const matches = files.filter((f) => {
      if (!f.toLowerCase().endsWith('.png')) return false;
      const stem = f.slice(0, -4);
      return stem === base || stem.startsWith(`${base}@`) || stem.startsWith(`${base}~`);
    });
    matches.sort((a, b) => scale(b) - scale(a));
    for (const m of matches) if (!found.includes(m)) found.push(m);
  }
  return found;
}

function scale(name: string): number {
  const match = /@(\d)x/.exec(name);
  return (match ? Number(match[1]) : 1) * 10 - (name.includes('~ipad') ? 1 : 0);
}

/**
 * The largest (by width) of these PNGs that a browser can show. Xcode's Apple-only "CgBI" PNGs
 * (byte-swapped, premultiplied, headerless deflate) are skipped: served as image/png they would
 * not render (docs/builds.md).
 */
export function largestIcon(pngs: Buffer[]): BuildIcon | null {
  let best: { icon: BuildIcon; width: number } | null = null;
  for (const png of pngs) {
    const icon = png.length <= MAX_ICON_BYTES ? asBuildIcon(png) : null;
    if (!icon || icon.type !== 'png' || png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') continue;
    const width = png.readUInt32BE(16);
    if (!best || width > best.width) best = { icon, width };
  }
  return best?.icon ?? null;
}
