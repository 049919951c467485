import { read } from 'node:fs';
import { Readable } from 'node:stream';
import { RandomAccessReader } from 'yauzl';
import { quickFileCalls } from '../common/files/quick-file-calls';

/** Read at once when yauzl asks for the end of the archive: the whole of a small build, and the central directory of most. */
const TAIL_BYTES = 256 * 1024;
/** Read at once on any other miss: a run of central-directory records, or a local header with a small entry's data. */
const WINDOW_BYTES = 64 * 1024;

interface Window {
  start: number;
  bytes: Buffer;
}

/**
 * A file for yauzl, read in windows. yauzl's own file reader makes one `fs.read` per request: two
 * per central-directory record and one per local header, each a trip through libuv's thread pool
 * and a whole event-loop turn, so under load a 2-entry APK took ~15 turns (hundreds of ms) and a
 * 1,000-entry one thousands. Here the first read of the archive's end takes its last 256 kB, and
 * any other miss the next 64 kB: a small build is read with one read (a quick call from the event
 * loop, quick-file-calls.ts), a large one's central directory with a few. Answers from a window
 * come back without I/O (on the next tick).
 */
export class WindowedFileReader extends RandomAccessReader {
  private tail: Window | null = null;
  private recent: Window | null = null;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    super();
  }

  read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    const hit = this.cached(position, position + length);
    if (hit) {
      hit.copy(buffer, offset);
      process.nextTick(callback, null, length);
      return;
    }
    const atEnd = position + length >= this.size;
    const start = atEnd ? Math.max(0, Math.min(position, this.size - TAIL_BYTES)) : position;
    const end = atEnd ? this.size : Math.min(this.size, position + Math.max(length, WINDOW_BYTES));
    const bytes = Buffer.allocUnsafe(end - start);
    // A window of up to 64 kB (all of a small build) is a quick call from the event loop (quick-file-calls.ts).
    quickFileCalls.read(this.fd, bytes, 0, bytes.length, start).then((bytesRead) => {
      const window = { start, bytes: bytes.subarray(0, bytesRead) };
      if (atEnd) this.tail = window;
      else this.recent = window;
      // Fewer bytes than asked (a record pointing past the end): yauzl reports the short read.
      const got = Math.max(0, Math.min(length, start + bytesRead - position));
      if (got > 0) window.bytes.copy(buffer, offset, position - start, position - start + got);
      callback(null, got);
    }, callback);
  }

  _readStreamForRange(start: number, end: number): Readable {
    const hit = this.cached(start, end);
    if (hit) return Readable.from([hit], { objectMode: false });
    return rangeStream(this.fd, start, end);
  }

  close(callback: (err: Error | null) => void): void {
    this.tail = this.recent = null;
    quickFileCalls.close(this.fd).then(() => callback(null), callback);
  }

  /** The bytes [start, end) when one window holds all of them. */
  private cached(start: number, end: number): Buffer | null {
    for (const window of [this.recent, this.tail]) {
      if (window && start >= window.start && end <= window.start + window.bytes.length) {
        return window.bytes.subarray(start - window.start, end - window.start);
      }
    }
    return null;
  }
}

/**
 * Bytes [start, end) of the file, read in windows. Not fs.createReadStream: destroyed before its end
 * (yauzl destroys an entry's stream it stops reading) it closes the shared descriptor even with
 * `autoClose: false`.
 */
function rangeStream(fd: number, start: number, end: number): Readable {
  let position = start;
  return new Readable({
    highWaterMark: WINDOW_BYTES,
    read() {
      const length = Math.min(WINDOW_BYTES, end - position);
      if (length <= 0) return void this.push(null);
      const bytes = Buffer.allocUnsafe(length);
      read(fd, bytes, 0, length, position, (err, bytesRead) => {
        if (err) return this.destroy(err);
        position += bytesRead;
        // Short of `end` at the end of the file: yauzl's byte count reports the truncation.
        this.push(bytesRead ? bytes.subarray(0, bytesRead) : null);
      });
    },
  });
}
