import { rgbPng } from '../src/agent-daemon/backends/png-image';

/** A 1 MiB PNG (noise, stored uncompressed, so it stays 1 MiB): what a phone screen capture weighs. */
export function noisePng(bytes: number): Buffer {
  const width = 512;
  const height = Math.ceil(bytes / (1 + width * 3));
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  for (let y = 0; y < height; y++) raw[y * (1 + width * 3)] = 0; // filter byte: none
  return rgbPng(width, height, raw, 0);
}
