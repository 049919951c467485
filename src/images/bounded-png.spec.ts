import { deflateSync } from 'node:zlib';
import { pngFile, zlibOfZeros } from '../../test/support/png-file';
import { pngChunk } from '../agent-daemon/backends/png-image';
import { decodeBoundedPng, inflatedSizeOf, PngLayout } from './bounded-png';

const layout = (fields: Partial<PngLayout>): PngLayout => ({ width: 8, height: 8, bitDepth: 8, colorType: 0, interlaced: false, ...fields });
/** A palette colour type needs its PLTE: one black entry, index 0 (all the zeros below). */
const extraChunks = (l: PngLayout) => (l.colorType === 3 ? [pngChunk('PLTE', Buffer.alloc(3))] : []);
/** A PNG of this layout whose image data is `bytes` zeros (filter byte 0, all-zero pixels when it is the allowance). */
const zerosPng = (l: PngLayout, bytes: number) => pngFile(l, deflateSync(Buffer.alloc(bytes)), extraChunks(l));

describe('inflatedSizeOf (the bytes a header allows)', () => {
  it.each([
    ['8×8 grey 8-bit', layout({}), 8 * (1 + 8)],
    ['3×2 grey 1-bit (rows packed to whole bytes)', layout({ width: 3, height: 2, bitDepth: 1 }), 2 * (1 + 1)],
    ['2×2 RGBA 16-bit', layout({ width: 2, height: 2, bitDepth: 16, colorType: 6 }), 2 * (1 + 16)],
    ['1024×1024 RGBA 8-bit', layout({ width: 1024, height: 1024, colorType: 6 }), 1024 * (1 + 4096)],
    // Adam7 passes of 8×8: 1×1, 1×1, 2×1, 2×2, 4×2, 4×4, 8×4 pixels, each row with its filter byte.
    ['8×8 grey 8-bit interlaced', layout({ interlaced: true }), 2 + 2 + 3 + 2 * 3 + 2 * 5 + 4 * 5 + 4 * 9],
    ['1×1 RGBA interlaced (six empty passes carry no filter bytes)', layout({ width: 1, height: 1, colorType: 6, interlaced: true }), 5],
    // 3×1: pixel 0 in pass 1, pixel 2 in pass 4, pixel 1 in pass 6; one packed byte and a filter byte each.
    ['3×1 palette 2-bit interlaced', layout({ width: 3, height: 1, bitDepth: 2, colorType: 3, interlaced: true }), 3 * 2],
  ])('%s', (_, l, expected) => expect(inflatedSizeOf(l)).toBe(expected));
});

describe('decodeBoundedPng', () => {
  const layouts: [string, PngLayout][] = [
    ['grey 8-bit', layout({ width: 13, height: 7 })],
    ['grey 1-bit interlaced', layout({ width: 13, height: 7, bitDepth: 1, interlaced: true })],
    ['palette 4-bit', layout({ width: 5, height: 9, bitDepth: 4, colorType: 3 })],
    ['RGB 16-bit interlaced', layout({ width: 9, height: 5, bitDepth: 16, colorType: 2, interlaced: true })],
    ['RGBA 8-bit interlaced', layout({ width: 64, height: 64, colorType: 6, interlaced: true })],
    ['RGBA 8-bit', layout({ width: 64, height: 64, colorType: 6 })],
  ];

  it.each(layouts)('%s: image data of exactly the allowance decodes; one byte more, or less, is refused', (_, l) => {
    const allowance = inflatedSizeOf(l);
    const decoded = decodeBoundedPng(zerosPng(l, allowance), { maxSide: 64 });
    expect(decoded && { width: decoded.width, height: decoded.height, bytes: decoded.data.length }).toEqual({
      width: l.width,
      height: l.height,
      bytes: l.width * l.height * 4,
    });
    expect(decodeBoundedPng(zerosPng(l, allowance + 1), { maxSide: 64 })).toBeNull();
    expect(decodeBoundedPng(zerosPng(l, allowance - 1), { maxSide: 64 })).toBeNull();
  });

  it('stops a bomb (interlaced 1024 px, IDAT inflating to 64 MiB) at its allowance, without inflating the rest', () => {
    const png = pngFile(layout({ width: 1024, height: 1024, colorType: 6, interlaced: true }), zlibOfZeros(64));
    const before = process.memoryUsage().arrayBuffers;
    expect(decodeBoundedPng(png, { maxSide: 1024 })).toBeNull();
    // pngjs alone holds all 64 MiB inflated before it notices (the e2e spec icon-bombs shows the relay's RSS).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('caps the sides before inflating anything', () => {
    const l = layout({ width: 65, height: 1 });
    expect(decodeBoundedPng(zerosPng(l, inflatedSizeOf(l)), { maxSide: 64 })).toBeNull();
    expect(decodeBoundedPng(zerosPng(l, inflatedSizeOf(l)), { maxSide: 65 })).not.toBeNull();
    const wide = layout({ width: 0x7fffffff, height: 0x7fffffff, colorType: 6, interlaced: true });
    expect(decodeBoundedPng(pngFile(wide, zlibOfZeros(4)), { maxSide: 1024 })).toBeNull();
  });

  it('refuses what is not a well-framed PNG', () => {
    const l = layout({});
    const good = zerosPng(l, inflatedSizeOf(l));
    expect(decodeBoundedPng(good, { maxSide: 64 })).not.toBeNull();
    expect(decodeBoundedPng(Buffer.from('RIFF....WEBPVP8 '), { maxSide: 64 })).toBeNull();
    expect(decodeBoundedPng(good.subarray(0, good.length - 12), { maxSide: 64 })).toBeNull(); // no IEND
    expect(decodeBoundedPng(good.subarray(0, 40), { maxSide: 64 })).toBeNull(); // IDAT cut short
    expect(decodeBoundedPng(pngFile({ ...l, bitDepth: 3 }, deflateSync(Buffer.alloc(72))), { maxSide: 64 })).toBeNull();
    expect(decodeBoundedPng(pngFile({ ...l, colorType: 6, bitDepth: 4 }, deflateSync(Buffer.alloc(72))), { maxSide: 64 })).toBeNull();
  });
});
