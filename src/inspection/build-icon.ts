import { sniffImageType } from '../images/image-type';

/** A launcher icon read out of a build: PNG or WebP bytes, never more than MAX_ICON_BYTES. */
export interface BuildIcon {
  type: 'png' | 'webp';
  data: Buffer;
}

/**
 * Largest icon kept. A 192×192 xxxhdpi launcher PNG is 10–40 KB and a 180×180 iOS one similar;
 * anything far larger is not a launcher icon worth storing (or is crafted), and the next smaller
 * density is tried instead.
 */
export const MAX_ICON_BYTES = 256 * 1024;

/** The icon these bytes are, when they are a PNG or WebP within the size bound; else null. */
export function asBuildIcon(data: Buffer): BuildIcon | null {
  if (data.length > MAX_ICON_BYTES) return null;
  const type = sniffImageType(data);
  return type === 'png' || type === 'webp' ? { type, data } : null;
}
