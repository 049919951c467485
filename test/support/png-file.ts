import { constants, deflateRawSync } from 'node:zlib';
import { pngChunk } from '../../src/agent-daemon/backends/png-image';

/** What a PNG's IHDR declares. */
export interface PngHeaderFields {
  width: number;
  height: number;
  bitDepth: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA */
  colorType: number;
  interlaced: boolean;
}

/** A PNG file, byte for byte: this header, `zlibData` as its one IDAT, IEND (plus `extraChunks` before IDAT, e.g. PLTE). */
export function pngFile(header: PngHeaderFields, zlibData: Buffer, extraChunks: Buffer[] = []): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(header.width, 0);
  ihdr.writeUInt32BE(header.height, 4);
  ihdr.set([header.bitDepth, header.colorType, 0, 0, header.interlaced ? 1 : 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    ...extraChunks,
    pngChunk('IDAT', zlibData),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const MiB = 1024 * 1024;

/**
 * A valid zlib stream of `mebibytes` MiB of zeros (about 1 KB of stream per MiB), made without
 * holding them: one MiB deflated and sync-flushed (its matches reach back only into itself, and it
 * ends on a byte boundary) repeated, closed by an empty final block and the zeros' Adler-32.
 */
export function zlibOfZeros(mebibytes: number): Buffer {
  const unit = deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((mebibytes * MiB) % 65521) * 0x10000 + 1) >>> 0, 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(mebibytes).fill(unit), Buffer.from([0x03, 0x00]), adler]);
}
