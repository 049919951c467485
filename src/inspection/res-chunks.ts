import { ByteReader } from './malformed-build.error';

/**
 * Pieces shared by Android's binary XML (AndroidManifest.xml) and resource table (resources.arsc):
 * chunk headers and the string pool. Format: AOSP frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h.
 */
export const ChunkType = {
  StringPool: 0x0001,
  Table: 0x0002,
  Xml: 0x0003,
  XmlStartNamespace: 0x0100,
  XmlEndNamespace: 0x0101,
  XmlStartElement: 0x0102,
  XmlEndElement: 0x0103,
  XmlCdata: 0x0104,
  XmlResourceMap: 0x0180,
  TablePackage: 0x0200,
  TableType: 0x0201,
  TableTypeSpec: 0x0202,
  TableLibrary: 0x0203,
} as const;

/** Res_value data types we interpret. */
export const ValueType = {
  Null: 0x00,
  Reference: 0x01,
  String: 0x03,
  DynamicReference: 0x07,
  IntDec: 0x10,
  IntHex: 0x11,
  Boolean: 0x12,
  /** #AARRGGBB … #RGB: colour values (data always 0xAARRGGBB). */
  ColorFirst: 0x1c,
  ColorLast: 0x1f,
} as const;

export interface Chunk {
  type: number;
  headerSize: number;
  /** Offset of the chunk in the buffer. */
  start: number;
  /** Offset just past the chunk. */
  end: number;
}

/** Reads the chunk header at `offset`; its size must fit inside `limit` and be at least its header (no zero-size loops). */
export function readChunk(r: ByteReader, offset: number, limit: number): Chunk {
  const type = r.u16(offset);
  const headerSize = r.u16(offset + 2);
  const size = r.u32(offset + 4);
  if (headerSize < 8 || size < headerSize || offset + size > limit) r.fail(`chunk 0x${type.toString(16)} has bad sizes`);
  return { type, headerSize, start: offset, end: offset + size };
}

/** The children of a chunk, from `from` to its end; each step advances by a validated, non-zero size. */
export function* childChunks(r: ByteReader, from: number, end: number, maxChunks = 1_000_000): Generator<Chunk> {
  let offset = from;
  let count = 0;
  while (offset + 8 <= end) {
    if (++count > maxChunks) r.fail('too many chunks');
    const chunk = readChunk(r, offset, end);
    yield chunk;
    offset = chunk.end;
  }
}

const UTF8_FLAG = 1 << 8;

/** A string pool whose strings are decoded lazily, one at a time, with every offset checked. */
export class StringPool {
  private readonly cache = new Map<number, string>();
  readonly count: number;
  private readonly utf8: boolean;
  private readonly offsetsAt: number;
  private readonly stringsAt: number;

  constructor(
    private readonly r: ByteReader,
    private readonly chunk: Chunk,
  ) {
    this.count = r.u32(chunk.start + 8);
    const flags = r.u32(chunk.start + 16);
    const stringsStart = r.u32(chunk.start + 20);
    this.utf8 = (flags & UTF8_FLAG) !== 0;
    this.offsetsAt = chunk.start + chunk.headerSize;
    this.stringsAt = chunk.start + stringsStart;
    // Each string needs a 4-byte offset entry: a count larger than the chunk can hold is a lie.
    if (this.count > (chunk.end - this.offsetsAt) / 4) r.fail('string pool count exceeds its chunk');
    if (this.count > 0 && (this.stringsAt < this.offsetsAt || this.stringsAt > chunk.end)) r.fail('string pool data offset');
  }

  /** The string at `index`, or null for the "no string" index 0xFFFFFFFF. */
  get(index: number): string | null {
    if (index === 0xffffffff) return null;
    if (index >= this.count) this.r.fail('string index out of range');
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    const at = this.stringsAt + this.r.u32(this.offsetsAt + index * 4);
    if (at >= this.chunk.end) this.r.fail('string offset out of range');
    const value = this.utf8 ? this.readUtf8(at) : this.readUtf16(at);
    this.cache.set(index, value);
    return value;
  }

  private readUtf8(at: number): string {
    let p = at;
    // UTF-16 length first (skipped), then the UTF-8 byte length; each is 1 or 2 bytes.
    p += this.r.u8(p) & 0x80 ? 2 : 1;
    let length = this.r.u8(p);
    if (length & 0x80) {
      length = ((length & 0x7f) << 8) | this.r.u8(p + 1);
      p += 2;
    } else {
      p += 1;
    }
    if (p + length > this.chunk.end) this.r.fail('string runs past its pool');
    return decodePoolUtf8(this.r.slice(p, length));
  }

  private readUtf16(at: number): string {
    let p = at;
    let length = this.r.u16(p);
    if (length & 0x8000) {
      length = ((length & 0x7fff) << 16) | this.r.u16(p + 2);
      p += 4;
    } else {
      p += 2;
    }
    if (p + length * 2 > this.chunk.end) this.r.fail('string runs past its pool');
    return this.r.slice(p, length * 2).toString('utf16le');
  }
}

/**
 * UTF-8 as aapt and aapt2 write it into string pools: characters outside the BMP are often two
 * 3-byte surrogate sequences (CESU-8, libutils' utf16_to_utf8) instead of one 4-byte sequence, which
 * Node's decoder would turn into U+FFFD. Both forms decode to the same string; anything else
 * invalid becomes U+FFFD.
 */
export function decodePoolUtf8(bytes: Buffer): string {
  if (!bytes.includes(0xed)) return bytes.toString('utf8');
  const units: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const cont = (k: number) => i + k < bytes.length && (bytes[i + k] & 0xc0) === 0x80;
    if (b < 0x80) {
      units.push(b);
      i += 1;
    } else if (b >= 0xc0 && b < 0xe0 && cont(1)) {
      units.push(((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else if (b >= 0xe0 && b < 0xf0 && cont(1) && cont(2)) {
      units.push(((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    } else if (b >= 0xf0 && b < 0xf8 && cont(1) && cont(2) && cont(3)) {
      const cp = ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f);
      if (cp > 0xffff && cp <= 0x10ffff) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
      else units.push(0xfffd);
      i += 4;
    } else {
      units.push(0xfffd);
      i += 1;
    }
  }
  // Lone surrogates (a half pair) are not text: replace them as a UTF-8 decoder would.
  let text = '';
  for (let k = 0; k < units.length; k += 4096) text += String.fromCharCode(...units.slice(k, k + 4096));
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
