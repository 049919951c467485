import { inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';

/**
 * The one way the relay decodes a PNG into pixels (docs/robustness.md "Decoded images"). A PNG's
 * header fixes exactly how many bytes its image data inflates to, but pngjs inflates an interlaced
 * PNG with no limit at all: a 1 MiB IDAT of deflated zeros became a 1 GB buffer and stalled the
 * relay for seconds. So the sides are capped before anything is inflated, the image data is
 * inflated here with zlib's maxOutputLength set to the header's allowance, and only data that
 * inflates to exactly that is handed to pngjs.
 */

/** A decoded PNG: RGBA pixels, 8 bits a channel (what pngjs gives for every colour type and depth). */
export interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}

/** The IHDR fields that fix the image data's inflated size. */
export interface PngLayout {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Samples per pixel by colour type, and the bit depths each allows (PNG spec 11.2.2). */
const COLOR_TYPES: Record<number, { samples: number; depths: number[] }> = {
  0: { samples: 1, depths: [1, 2, 4, 8, 16] },
  2: { samples: 3, depths: [8, 16] },
  3: { samples: 1, depths: [1, 2, 4, 8] },
  4: { samples: 2, depths: [8, 16] },
  6: { samples: 4, depths: [8, 16] },
};
/** Adam7's seven passes: first column, column step, first row, row step. */
const ADAM7 = [
  [0, 8, 0, 8],
  [4, 8, 0, 8],
  [0, 4, 4, 8],
  [2, 4, 0, 4],
  [0, 2, 2, 4],
  [1, 2, 0, 2],
  [0, 1, 1, 2],
];
const WHOLE_IMAGE = [[0, 1, 0, 1]];

/**
 * Bytes the image data of this layout inflates to: per scanline a filter byte and the packed
 * pixels; an interlaced image has the scanlines of each Adam7 pass, and a pass with no pixels has none.
 */
export function inflatedSizeOf(layout: PngLayout): number {
  const bitsPerPixel = COLOR_TYPES[layout.colorType].samples * layout.bitDepth;
  let total = 0;
  for (const [x0, dx, y0, dy] of layout.interlaced ? ADAM7 : WHOLE_IMAGE) {
    const columns = Math.ceil(Math.max(0, layout.width - x0) / dx);
    const rows = Math.ceil(Math.max(0, layout.height - y0) / dy);
    if (columns > 0) total += rows * (1 + Math.ceil((columns * bitsPerPixel) / 8));
  }
  return total;
}

/**
 * The pixels of a PNG whose sides are at most `maxSide`; null when it is larger, not a PNG,
 * malformed, or its image data does not inflate to exactly what its header allows (a bomb is
 * stopped one byte past the allowance). Work and memory are bounded by maxSide².
 */
export function decodeBoundedPng(png: Buffer, limits: { maxSide: number }): DecodedPng | null {
  const parsed = readChunks(png);
  if (!parsed) return null;
  const { layout, imageData, end } = parsed;
  if (layout.width === 0 || layout.height === 0 || layout.width > limits.maxSide || layout.height > limits.maxSide) return null;
  const allowance = inflatedSizeOf(layout);
  try {
    if (inflateSync(imageData, { maxOutputLength: allowance }).length !== allowance) return null;
    // pngjs reads up to IEND, exactly the IDAT chunks just inflated, so it inflates no more than that.
    const decoded = PNG.sync.read(png.subarray(0, end));
    return { width: decoded.width, height: decoded.height, data: decoded.data };
  } catch {
    return null;
  }
}

/** The header's layout, the IDAT chunks' data joined, and where IEND ends; null when the chunk framing is broken. */
function readChunks(png: Buffer): { layout: PngLayout; imageData: Buffer; end: number } | null {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE) || png.readUInt32BE(8) !== 13 || png.toString('latin1', 12, 16) !== 'IHDR') {
    return null;
  }
  const layout: PngLayout = {
    width: png.readUInt32BE(16),
    height: png.readUInt32BE(20),
    bitDepth: png[24],
    colorType: png[25],
    interlaced: png[28] === 1,
  };
  if (!COLOR_TYPES[layout.colorType]?.depths.includes(layout.bitDepth) || png[28] > 1) return null;
  const idat: Buffer[] = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const next = at + 12 + length;
    if (next > png.length) return null;
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') return idat.length ? { layout, imageData: Buffer.concat(idat), end: next } : null;
    at = next;
  }
  return null;
}
