/** Image formats the relay stores, recognised by their first bytes (never by file name or part MIME). */
export type ImageType = 'png' | 'jpeg' | 'webp';

export const IMAGE_MIME: Record<ImageType, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

export const IMAGE_EXTENSION: Record<ImageType, string> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type of these leading bytes, or null (GIF, SVG, HTML, anything else). */
export function sniffImageType(head: Buffer): ImageType | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') {
    return 'webp';
  }
  return null;
}

/** The type a stored file is served as, from the extension the relay itself gave it. */
export function imageTypeOfStoredName(name: string): ImageType | null {
  const ext = name.slice(name.lastIndexOf('.') + 1);
  const found = (Object.keys(IMAGE_EXTENSION) as ImageType[]).find((type) => IMAGE_EXTENSION[type] === ext);
  return found ?? null;
}
