import { close, closeSync, open, openSync, read, readSync, rename, renameSync, write, writev } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

/**
 * The file calls of an upload's short path (create its temp file, close it, a small read of it while
 * inspecting, rename it into the data folder), made synchronously from the event loop.
 *
 * Why: made asynchronously, each is a trip through libuv's thread pool and back through a whole
 * event-loop turn, and under the mixed load of `bench:soak` (50 clients) a turn is 10–30 ms: a
 * comment with a 2 kB screenshot made four such trips (open, close, rename, and an unlink of the
 * already-moved temp name) and took 75 ms at p50 against 17 ms without it; a 1.6 kB APK five
 * (docs/decisions.md#issue-27-writes). Made here they touch the page cache and the directory
 * entries of a file just written, a few µs each.
 *
 * The guard: two calls in a row that take longer than `SLOW_CALL_MS` mean the disk itself is
 * answering (a stalled journal, write-back throttling; one alone may be the process losing its core
 * on a loaded machine), and then every call here goes through the thread pool for the next
 * `POOLED_FOR_MS`, so a slow disk cannot hold the event loop call after call. Reads
 * of more than `QUICK_READ_MAX_BYTES` always go through the pool. Durability is the same either
 * way: the bytes are in the kernel's page cache before the upload is acknowledged, so they survive
 * the relay's process being killed (`kill -9`) exactly as before.
 */
export const SLOW_CALL_MS = 50;
export const POOLED_FOR_MS = 60_000;
export const QUICK_READ_MAX_BYTES = 64 * 1024;

/** Slow calls in a row that send the calls to the thread pool. */
export const SLOW_CALLS_IN_A_ROW = 2;

/** Until when (performance.now()) the calls go through the thread pool after slow ones. */
let pooledUntil = 0;
let slowInARow = 0;

const openPooled = promisify(open);
const closePooled = promisify(close);
const renamePooled = promisify(rename);
const readPooled = promisify(read);

/** `sync` from the event loop, as a promise; `pooled` instead while the guard holds (exported for its spec). */
export function callQuickly<T>(sync: () => T, pooled: () => Promise<T>): Promise<T> {
  const started = performance.now();
  if (started < pooledUntil) return pooled();
  try {
    return Promise.resolve(sync());
  } catch (err) {
    return Promise.reject(err);
  } finally {
    const ended = performance.now();
    slowInARow = ended - started > SLOW_CALL_MS ? slowInARow + 1 : 0;
    if (slowInARow >= SLOW_CALLS_IN_A_ROW) {
      slowInARow = 0;
      pooledUntil = ended + POOLED_FOR_MS;
    }
  }
}

export const quickFileCalls = {
  open: (path: string, flags: string | number, mode?: number): Promise<number> =>
    callQuickly(
      () => openSync(path, flags, mode),
      () => openPooled(path, flags, mode),
    ),
  close: (fd: number): Promise<void> =>
    callQuickly(
      () => closeSync(fd),
      () => closePooled(fd),
    ),
  rename: (from: string, to: string): Promise<void> =>
    callQuickly(
      () => renameSync(from, to),
      () => renamePooled(from, to),
    ),
  /** Bytes read into `buffer` at `offset`; from the pool whenever `length` is over QUICK_READ_MAX_BYTES. */
  read: (fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> =>
    length > QUICK_READ_MAX_BYTES
      ? readPooled(fd, buffer, offset, length, position).then((r) => r.bytesRead)
      : callQuickly(
          () => readSync(fd, buffer, offset, length, position),
          () => readPooled(fd, buffer, offset, length, position).then((r) => r.bytesRead),
        ),
  /** Whether the calls currently go through the pool (a slow call was seen); for tests and metrics. */
  pooled: (): boolean => performance.now() < pooledUntil,
};

/**
 * The `fs` option of `createWriteStream` (public API: open, write/writev, close) for a temp file
 * whose bytes the caller writes itself from the event loop (spoolTo): its open and close are quick
 * calls; writes the stream makes on its own (spoolBuffered, once the disk is slow) stay pooled.
 */
export const quickWriteStreamCalls = {
  open(path: string, flags: string | number, mode: number, callback: (err: Error | null, fd?: number) => void): void {
    quickFileCalls.open(path, flags, mode).then((fd) => callback(null, fd), callback);
  },
  close(fd: number, callback: (err: Error | null) => void): void {
    quickFileCalls.close(fd).then(() => callback(null), callback);
  },
  write,
  writev,
};
