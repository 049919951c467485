import { Transform, TransformCallback } from 'node:stream';
import { freeBytes, notEnoughSpace } from './multipart-receiver';

/**
 * Free space is read again after every this many bytes: a statfs costs microseconds, so another
 * writer filling the disk meanwhile is noticed within 1 MB rather than the 16 MB of a multipart file.
 */
const RECHECK_EVERY = 1024 * 1024;

/**
 * Passes a body on towards the disk while the disk keeps `reserveBytes` free, whatever the request
 * declared (a chunked body declares nothing): a chunk that would eat into the reserve fails the
 * stream with 507 before it is written. Free space is read once, then counted down by what passes,
 * and read again when a chunk does not fit the count or every RECHECK_EVERY bytes (other writers
 * share the disk).
 */
export class DiskReserveGuard extends Transform {
  private budget: number;
  private sinceCheck = 0;
  /** Bytes passed on so far. */
  passed = 0;
  /** Set when the guard refused: the 507 to answer, whatever the stream machinery made of it. */
  refusal: Error | null = null;

  constructor(
    private readonly dir: string,
    private readonly reserveBytes: number,
  ) {
    super();
    this.budget = freeBytes(dir) - reserveBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.sinceCheck += chunk.length;
    if (chunk.length > this.budget || this.sinceCheck >= RECHECK_EVERY) {
      this.budget = freeBytes(this.dir) - this.reserveBytes;
      this.sinceCheck = 0;
    }
    if (chunk.length > this.budget) {
      this.refusal = notEnoughSpace();
      return done(this.refusal);
    }
    this.budget -= chunk.length;
    this.passed += chunk.length;
    done(null, chunk);
  }
}
