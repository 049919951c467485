import { writeSync, WriteStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { collectYoungGarbage } from '../../platform/v8/young-scavenge';

/** Size of each disk write, and of each of the few buffers the bytes are copied into. */
export const SPOOL_WRITE_BYTES = 1024 * 1024;
/** Buffers per file part: one filling while the other is being written. */
const SPOOL_BUFFERS = 2;
/** Full-size buffers kept between uploads (see takeBuffer). */
const POOLED_BUFFERS = 4;
const pool: Buffer[] = [];
/** A young-generation collection after every this many bytes spooled (see collectYoungGarbage). */
const COLLECT_EVERY_BYTES = 2 * 1024 * 1024;

/**
 * A direct write that kept the event loop this long means the disk, not the page cache, is taking
 * the bytes (write-back throttling): the rest of that file goes through the thread pool instead.
 * Far above a 64 kB write into the page cache (tens of µs), and above a time slice lost to the
 * other processes on a loaded machine.
 */
export const SLOW_WRITE_MS = 50;

/**
 * Writes a file part to `out`: each chunk as it arrives, with a blocking write from the event loop,
 * until one such write takes longer than `slowWriteMs`; from then on spoolBuffered() takes the rest.
 * Why not the thread pool: a socket read lands in the main thread's core's cache, and a pool
 * thread writing it from the other core made the kernel's copy into the page cache cost twice as
 * much (bench:upload, 500 MB, load 8-10: relay 1,100 ms of CPU per upload, 630 ms of it kernel
 * time on the pool threads, against nginx's 450 ms for its reads and writes together; written
 * here, 430 ms). Each chunk dies as soon as it is written, and a scavenge every 2 MB frees them.
 * A write error destroys `out` with it (its 'error' event). Ends `out` when `source` ends.
 */
export function spoolTo(source: Readable, out: WriteStream, atMostBytes = SPOOL_WRITE_BYTES, slowWriteMs = SLOW_WRITE_MS): void {
  /** Chunks that arrived before the file was open. */
  const early: Buffer[] = [];
  let fd: number | null = null;
  let ended = false;
  let sinceCollect = 0;

  /** Writes one chunk; true when the write was slow. */
  const write = (chunk: Buffer): boolean => {
    if (out.destroyed) return false;
    const started = performance.now();
    try {
      for (let offset = 0; offset < chunk.length; ) offset += writeSync(fd!, chunk, offset, chunk.length - offset);
    } catch (err) {
      out.destroy(err as Error);
      return false;
    }
    sinceCollect += chunk.length;
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      sinceCollect = 0;
      setImmediate(collectYoungGarbage);
    }
    return performance.now() - started > slowWriteMs;
  };
  const onData = (chunk: Buffer) => {
    if (fd === null) early.push(chunk);
    else if (write(chunk)) {
      source.off('data', onData).off('end', onEnd);
      spoolBuffered(source, out, atMostBytes);
    }
  };
  const onEnd = () => {
    ended = true;
    if (fd !== null && !out.destroyed) out.end();
  };
  out.once('ready', () => {
    fd = (out as WriteStream & { fd: number }).fd;
    for (const chunk of early.splice(0)) write(chunk);
    if (ended && !out.destroyed) out.end();
  });
  source.on('data', onData).on('end', onEnd);
}

/**
 * spoolTo()'s fallback once the disk is slow: writes a file part to `out` through the thread pool
 * in 1 MB writes from two reused buffers, pausing `source` while both are full. Why copy instead of piping: each 64 kB socket read is its own buffer, and a pipe keeps
 * it alive until its disk write completes, so V8 promotes many of them and frees them only at a
 * full collection, which external memory triggers after ~64 MB: a 500 MB upload grew the relay's
 * RSS by 35–50 MB. Copied at once, the socket buffers die young and a scavenge every 2 MB frees
 * them; and 1 MB writes are 16 times fewer thread-pool round trips than one per socket read.
 * Ends `out` when `source` ends. Errors are `out`'s and `source`'s own events. `atMostBytes` (the
 * request's Content-Length, when declared) sizes the buffers for a small file: no 1 MB allocation,
 * counted by V8 as external memory, for a 2 kB upload.
 */
export function spoolBuffered(source: Readable, out: WriteStream, atMostBytes = SPOOL_WRITE_BYTES): void {
  const bufferBytes = Math.min(SPOOL_WRITE_BYTES, Math.max(atMostBytes, 4096));
  const free: Buffer[] = [];
  let allocated = 0;
  let current: Buffer | null = null;
  let filled = 0;
  /** Chunks (or their rest) not yet copied, both buffers being written. */
  const waiting: Buffer[] = [];
  let ended = false;
  let finished = false;
  let sinceCollect = 0;

  const take = (): Buffer | null => {
    const reused = free.pop();
    if (reused) return reused;
    if (allocated === SPOOL_BUFFERS) return null;
    allocated++;
    return bufferBytes === SPOOL_WRITE_BYTES ? (pool.pop() ?? Buffer.allocUnsafeSlow(bufferBytes)) : Buffer.allocUnsafeSlow(bufferBytes);
  };
  const flush = () => {
    const buffer = current!;
    const length = filled;
    current = null;
    filled = 0;
    if (out.destroyed) return;
    out.write(buffer.subarray(0, length), (err) => {
      if (err) return; // reported by out's 'error' event
      free.push(buffer);
      if (!copyWaiting()) return;
      if (ended) finish();
      else if (source.isPaused()) source.resume();
    });
  };
  /** Copies the waiting chunks into the buffers, writing each buffer once full; false when out of buffers. */
  const copyWaiting = (): boolean => {
    while (waiting.length) {
      const chunk = waiting[0];
      let offset = 0;
      while (offset < chunk.length) {
        current ??= take();
        if (!current) {
          waiting[0] = chunk.subarray(offset);
          return false;
        }
        const copied = chunk.copy(current, filled, offset);
        filled += copied;
        offset += copied;
        if (filled === current.length) flush();
      }
      waiting.shift();
    }
    return true;
  };
  // A source may end while its last chunks still wait for a buffer: the file ends after them.
  const finish = () => {
    if (finished || waiting.length) return;
    finished = true;
    if (filled) flush();
    if (!out.destroyed) out.end();
  };
  // Full-size buffers outlive a scavenge, so V8 moves them to the old generation, where dropping
  // them would leave 2 MB per large upload for the next full collection: they go back to a pool.
  out.once('close', () => {
    for (const buffer of free) if (buffer.length === SPOOL_WRITE_BYTES && pool.length < POOLED_BUFFERS) pool.push(buffer);
  });

  source.on('data', (chunk: Buffer) => {
    waiting.push(chunk);
    if (!copyWaiting()) source.pause();
    sinceCollect += chunk.length;
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      sinceCollect = 0;
      // Once this turn's chunks are copied, so that none of them is alive to be promoted.
      setImmediate(collectYoungGarbage);
    }
  });
  source.on('end', () => {
    ended = true;
    finish();
  });
}
