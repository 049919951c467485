/** Unmasking agent frames (RFC 6455 §5.3) as ws does it, and where the binary frame being read stands. */

/** Unmasking as ws does it: the native bufferutil (an optional dependency) when present and not turned off. */
const native = nativeBufferUtil();
export const unmask = native?.unmask ?? ((buffer: Buffer, mask: Buffer) => {
  for (let i = 0; i < buffer.length; i++) buffer[i] ^= mask[i & 3];
});
/** `source` unmasked into `output` at `offset` in one pass (bufferutil's mask, as ws's Sender uses it). */
export const unmaskInto = native?.mask ?? ((source: Buffer, mask: Buffer, output: Buffer, offset: number, length: number) => {
  for (let i = 0; i < length; i++) output[offset + i] = source[i] ^ mask[i & 3];
});

interface BufferUtil {
  unmask(buffer: Buffer, mask: Buffer): void;
  mask(source: Buffer, mask: Buffer, output: Buffer, offset: number, length: number): void;
}

function nativeBufferUtil(): BufferUtil | null {
  if (process.env.WS_NO_BUFFER_UTIL) return null;
  try {
    return require('bufferutil') as BufferUtil;
  } catch {
    return null;
  }
}

/** Where the binary frame being read stands (one per socket; a socket reads one frame at a time). */
export interface FrameState {
  /** Payload bytes of the current frame not read yet; 0 between frames. */
  left: number;
  /** Bytes of the current frame read so far (where the mask stands). */
  offset: number;
  /** The pooled buffer the current frame's payload is gathered into, or null (slices of the reads). */
  dest: Buffer | null;
  mask: Buffer | null;
  /** The mask rotated to `offset`. */
  rotated: Buffer;
}

export function rotateMask(frame: FrameState): Buffer {
  for (let i = 0; i < 4; i++) frame.rotated[i] = frame.mask![(frame.offset + i) & 3];
  return frame.rotated;
}
