import { close, open, renameSync, unlink } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { randomHex } from '../crypto/secret-token';
import { quickFileCalls } from './quick-file-calls';

/**
 * Upload temp files created ahead of need, on libuv's thread pool, so that an upload renames one
 * that is already open instead of creating its own from the event loop.
 *
 * Why: creating a file allocates an inode, work whose cost is the filesystem's, not the relay's. On
 * the benchmark machine's ext4 a create in the benchmarks' data folder took 1.5 ms at p50 (0.03 ms
 * in another folder of the same disk, 0.01 on tmpfs), and a rename there 0.07 ms; over NFS or EFS a
 * create is a round trip. Made from the event loop (quick-file-calls.ts) it held every other
 * request for that long; made on the thread pool at the moment of need it cost the upload a whole
 * event-loop turn instead (docs/decisions.md#issue-27-writes, #issue-27-spare-files). Made ahead,
 * it costs neither.
 *
 * A folder's spares are created on its first upload, at most SPARES_PER_FOLDER at a time, and
 * replaced as they are taken. A spare is empty and named `spare-<hex>`, a shape sweepTempUploads
 * removes after a crash; taking one renames it to the upload's own temp name, so a file that holds
 * an upload's bytes is named as it always was. One older than SPARE_MAX_AGE_MS is thrown away when
 * it would be taken (the hourly sweep of idle temp files never meets one), as is one whose rename
 * fails (a sweep removed it). While quick-file-calls.ts sends file calls to the thread pool (a slow
 * disk), no spare is taken. The relay's shutdown removes them (discardSpareTempFiles).
 */
export const SPARES_PER_FOLDER = 8;
export const SPARE_MAX_AGE_MS = 10 * 60_000;
export const SPARE_NAME = /^spare-[0-9a-f]+$/;

interface Spare {
  path: string;
  fd: number;
  createdAt: number;
}

/** The same default mode as createWriteStream's, so a spare ends as a file created at need would. */
const FILE_MODE = 0o666;

const openFile = promisify(open);

class FolderSpares {
  private readonly ready: Spare[] = [];
  /** Creates in flight, each settling once its spare is ready or thrown away. */
  private readonly creating = new Set<Promise<void>>();
  private discarded = false;

  constructor(private readonly dir: string) {}

  /** A ready spare's descriptor, renamed to `path`; undefined when none is ready. */
  take(path: string, now: number): number | undefined {
    let taken: number | undefined;
    while (taken === undefined && this.ready.length) {
      const spare = this.ready.shift()!;
      if (now - spare.createdAt < SPARE_MAX_AGE_MS && renamed(spare.path, path)) taken = spare.fd;
      else void throwAway(spare);
    }
    this.fill();
    return taken;
  }

  async created(): Promise<void> {
    await Promise.all(this.creating);
  }

  /** Closes and removes every spare, those still being created included. */
  async discard(): Promise<void> {
    this.discarded = true;
    await Promise.all([...this.ready.splice(0).map(throwAway), ...this.creating]);
  }

  /** Up to SPARES_PER_FOLDER, ready or being created; a failed create is not retried until the next take. */
  private fill(): void {
    while (!this.discarded && this.ready.length + this.creating.size < SPARES_PER_FOLDER) {
      const path = join(this.dir, `spare-${randomHex(12)}`);
      const created: Promise<void> = openFile(path, 'wx', FILE_MODE).then(
        (fd) => {
          this.creating.delete(created);
          const spare = { path, fd, createdAt: Date.now() };
          if (this.discarded) return throwAway(spare);
          this.ready.push(spare);
        },
        () => void this.creating.delete(created),
      );
      this.creating.add(created);
    }
  }
}

function renamed(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch {
    return false;
  }
}

function throwAway(spare: Spare): Promise<void> {
  return new Promise((done) => close(spare.fd, () => unlink(spare.path, () => done())));
}

const folders = new Map<string, FolderSpares>();

/**
 * The descriptor of an empty file opened for writing, created beforehand in `path`'s folder and now
 * renamed to `path`; undefined when none is ready (the caller creates `path` itself).
 */
export function takeSpareTempFile(path: string, now = Date.now()): number | undefined {
  if (quickFileCalls.pooled()) return undefined;
  const dir = dirname(path);
  let spares = folders.get(dir);
  if (!spares) folders.set(dir, (spares = new FolderSpares(dir)));
  return spares.take(path, now);
}

/** Settles once the spares of `dir` being created are ready (for tests: they are created on the thread pool). */
export async function spareTempFilesCreated(dir: string): Promise<void> {
  await folders.get(dir)?.created();
}

/** Closes and removes the spares of `dir` (the relay stopping); the next take starts afresh. */
export async function discardSpareTempFiles(dir: string): Promise<void> {
  const spares = folders.get(dir);
  folders.delete(dir);
  await spares?.discard();
}
