import { PNG } from 'pngjs';
import { Bitmap, composeAdaptiveIcon, decodeLayer, MAX_LAYER_SIDE } from './adaptive-icon';

/** A square bitmap whose pixel (x, y) is paint(x, y) as RGBA. */
function bitmap(side: number, paint: (x: number, y: number) => number[]): Bitmap {
  const data = Buffer.alloc(side * side * 4);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) data.set(paint(x, y), (y * side + x) * 4);
  return { width: side, height: side, data };
}

const pixel = (png: PNG, x: number, y: number) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 4)];

describe('composeAdaptiveIcon', () => {
  it('scales a bitmap background to the foreground, blends half-transparent foreground pixels, crops to 72/108', () => {
    // Background 2×2: left column red, right column blue; foreground 108 px, half-transparent white.
    const background = bitmap(2, (x) => (x === 0 ? [255, 0, 0, 255] : [0, 0, 255, 255]));
    const foreground = bitmap(108, () => [255, 255, 255, 128]);
    const out = PNG.sync.read(composeAdaptiveIcon(background, foreground)!);
    expect([out.width, out.height]).toEqual([72, 72]);
    expect(pixel(out, 0, 0)).toEqual([255, 128, 128, 255]); // crop starts at 18: the red half
    expect(pixel(out, 71, 71)).toEqual([128, 128, 255, 255]); // 89: the blue half
  });

  it('a transparent foreground over a transparent colour stays transparent', () => {
    const out = PNG.sync.read(composeAdaptiveIcon({ color: 0x00000000 }, bitmap(3, () => [9, 9, 9, 0]))!);
    expect(pixel(out, 0, 0)).toEqual([0, 0, 0, 0]);
  });
});

describe('decodeLayer', () => {
  it('refuses a PNG whose header declares more than MAX_LAYER_SIDE, before decoding', () => {
    const png = PNG.sync.write(new PNG({ width: 2, height: 2 }));
    const huge = Buffer.from(png);
    huge.writeUInt32BE(MAX_LAYER_SIDE + 1, 16);
    expect(decodeLayer(huge)).toBeNull();
    expect(decodeLayer(png)).toEqual(expect.objectContaining({ width: 2, height: 2 }));
    expect(decodeLayer(Buffer.from('RIFF....WEBPVP8 '))).toBeNull();
  });
});
