import { PNG } from 'pngjs';
import { decodeBoundedPng } from '../images/bounded-png';
import { decodeBinaryXml } from './binary-xml';
import { MAX_ICON_BYTES } from './build-icon';
import { ValueType } from './res-chunks';

/** android.R.attr.drawable, the attribute of `<background>` and `<foreground>`. */
const ATTR_DRAWABLE = 0x01010199;
/** A layer is 108 dp: 432 px at xxxhdpi. Larger layers are not decoded (bounded work and memory). */
export const MAX_LAYER_SIDE = 1024;
/** Of the 108 dp layers, launchers show the centre 72 dp (the rest is for parallax and masks). */
const VISIBLE_FRACTION = 72 / 108;

/** A layer of an `<adaptive-icon>`: a colour, or a resource to resolve (a bitmap, a colour, a vector…). */
export type LayerRef = { color: number } | { resourceId: number };

/** The background and foreground of a compiled `<adaptive-icon>` XML; null when it is not one. */
export function adaptiveIconLayers(xml: Buffer): { background: LayerRef | null; foreground: LayerRef | null } | null {
  const elements = decodeBinaryXml(xml);
  if (elements[0]?.name !== 'adaptive-icon') return null;
  const layer = (name: string): LayerRef | null => {
    const drawable = elements
      .find((e) => e.name === name && e.depth === 1)
      ?.attributes.find((a) => a.resourceId === ATTR_DRAWABLE);
    if (!drawable) return null;
    if (drawable.type >= ValueType.ColorFirst && drawable.type <= ValueType.ColorLast) return { color: drawable.data >>> 0 };
    const isReference = drawable.type === ValueType.Reference || drawable.type === ValueType.DynamicReference;
    return isReference && drawable.data !== 0 ? { resourceId: drawable.data } : null;
  };
  return { background: layer('background'), foreground: layer('foreground') };
}

/** A decoded layer: RGBA pixels. */
export interface Bitmap {
  width: number;
  height: number;
  data: Buffer;
}

/**
 * Decodes a PNG layer whose declared size is within MAX_LAYER_SIDE and whose image data inflates to
 * no more than its header allows (a decompression bomb is refused); null otherwise, or when it is not a PNG.
 */
export function decodeLayer(png: Buffer): Bitmap | null {
  return decodeBoundedPng(png, { maxSide: MAX_LAYER_SIDE });
}

/**
 * What a launcher shows for an adaptive icon without a mask: the background (a colour, or a bitmap
 * scaled to the foreground's size) under the foreground, cropped to the visible centre 72 of 108 dp.
 * A PNG at the foreground's density (288 px for a 432 px xxxhdpi layer); null past MAX_ICON_BYTES.
 */
export function composeAdaptiveIcon(background: { color: number } | Bitmap, foreground: Bitmap): Buffer | null {
  const { width, height } = foreground;
  const cropW = Math.max(1, Math.round(width * VISIBLE_FRACTION));
  const cropH = Math.max(1, Math.round(height * VISIBLE_FRACTION));
  const left = Math.floor((width - cropW) / 2);
  const top = Math.floor((height - cropH) / 2);
  const out = new PNG({ width: cropW, height: cropH });
  for (let y = 0; y < cropH; y++) {
    for (let x = 0; x < cropW; x++) {
      const fx = x + left;
      const fy = y + top;
      const [br, bg, bb, ba] = backgroundAt(background, fx, fy, width, height);
      const f = (fy * width + fx) * 4;
      const fa = foreground.data[f + 3] / 255;
      const o = (y * cropW + x) * 4;
      const bAlpha = ba / 255;
      const alpha = fa + bAlpha * (1 - fa);
      const mix = (fc: number, bc: number) => (alpha === 0 ? 0 : Math.round((fc * fa + bc * bAlpha * (1 - fa)) / alpha));
      out.data[o] = mix(foreground.data[f], br);
      out.data[o + 1] = mix(foreground.data[f + 1], bg);
      out.data[o + 2] = mix(foreground.data[f + 2], bb);
      out.data[o + 3] = Math.round(alpha * 255);
    }
  }
  const png = PNG.sync.write(out);
  return png.length <= MAX_ICON_BYTES ? png : null;
}

/** The background's RGBA at a foreground pixel: the colour, or the bitmap's nearest pixel. */
function backgroundAt(background: { color: number } | Bitmap, x: number, y: number, width: number, height: number): number[] {
  if ('color' in background) {
    const c = background.color;
    return [(c >>> 16) & 0xff, (c >>> 8) & 0xff, c & 0xff, (c >>> 24) & 0xff];
  }
  const bx = Math.min(background.width - 1, Math.floor((x * background.width) / width));
  const by = Math.min(background.height - 1, Math.floor((y * background.height) / height));
  const i = (by * background.width + bx) * 4;
  return [background.data[i], background.data[i + 1], background.data[i + 2], background.data[i + 3]];
}
