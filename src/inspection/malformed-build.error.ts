/**
 * Raised by the archive and metadata readers when an upload cannot be understood. The intake
 * turns it into a 400 with this message; it never escapes as a 500.
 */
export class MalformedBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedBuildError';
  }
}

/** Bounds-checked little-endian reads: any read past the end is a MalformedBuildError, never a RangeError. */
export class ByteReader {
  constructor(
    readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private check(offset: number, length: number): void {
    if (!Number.isInteger(offset) || offset < 0 || offset + length > this.buf.length) {
      throw new MalformedBuildError(`${this.what} is truncated or corrupt`);
    }
  }

  u8(offset: number): number {
    this.check(offset, 1);
    return this.buf.readUInt8(offset);
  }

  u16(offset: number): number {
    this.check(offset, 2);
    return this.buf.readUInt16LE(offset);
  }

  u32(offset: number): number {
    this.check(offset, 4);
    return this.buf.readUInt32LE(offset);
  }

  slice(offset: number, length: number): Buffer {
    this.check(offset, length);
    return this.buf.subarray(offset, offset + length);
  }

  fail(detail: string): never {
    throw new MalformedBuildError(`${this.what} is corrupt (${detail})`);
  }
}
