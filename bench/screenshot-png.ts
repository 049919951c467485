import { deflateSync } from 'node:zlib';
import { pngChunk } from '../src/agent-daemon/backends/png-image';

/** A 1 MiB PNG (noise, stored uncompressed, so it stays 1 MiB): what a phone screen capture weighs. */
export function noisePng(bytes: number): Buffer {
  const width = 512;
  const height = Math.ceil(bytes / (1 + width * 3));
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  for (let y = 0; y < height; y++) raw[y * (1 + width * 3)] = 0; // filter byte: none
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
