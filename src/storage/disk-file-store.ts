import { constants, createReadStream, mkdirSync } from 'node:fs';
import { access, mkdir, opendir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { quickFileCalls } from '../common/files/quick-file-calls';
import { PRIVATE_FOLDER_MODE } from './private-modes';
import { ByteRange, FileStore, STORED_FOLDERS } from './file-store';

/** Directory entries read per trip to the thread pool while listing (Node's default is 32). */
const LIST_BUFFER_ENTRIES = 256;

/**
 * The default backend: files under the data folder, a key being the path relative to it
 * (`<data>/builds/<name>`, `<data>/uploads/avatars/<name>`, `<data>/recordings/<name>`). Temp files
 * sit on the same disk (`<data>/tmp`), so `put()` is an atomic rename.
 */
export class DiskFileStore extends FileStore {
  constructor(private readonly root: string) {
    super();
    for (const folder of STORED_FOLDERS) mkdirSync(join(root, folder), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  }

  get location(): string {
    return this.root;
  }

  async put(key: string, localPath: string): Promise<void> {
    const dest = this.pathOf(key);
    // The folder nearly always exists: try the rename first, and create the folder only when it is
    // missing (a `mkdir` every time was one more thread-pool trip per upload). The rename is a
    // quick call from the event loop (quick-file-calls.ts), not a thread-pool trip.
    try {
      await quickFileCalls.rename(localPath, dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(dirname(dest), { recursive: true, mode: PRIVATE_FOLDER_MODE });
      await quickFileCalls.rename(localPath, dest);
    }
  }

  async stat(key: string): Promise<{ size: number; modifiedMs: number } | null> {
    const info = await stat(this.pathOf(key)).catch(() => null);
    return info?.isFile() ? { size: info.size, modifiedMs: info.mtimeMs } : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    // Open before handing it out, so a missing file rejects here instead of erroring mid-response.
    await new Promise<void>((ok, fail) => stream.once('open', () => ok()).once('error', fail));
    return stream;
  }

  async remove(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }

  /**
   * The folder read as a stream of entries (file types from the entries, no stat per file): a
   * million build files are never one array in memory, and a reader that stops early closes it.
   */
  async *list(prefix: string): AsyncIterable<string> {
    const dir = await opendir(this.pathOf(prefix), { bufferSize: LIST_BUFFER_ENTRIES }).catch(() => null);
    if (!dir) return;
    for await (const entry of dir) if (entry.isFile()) yield prefix + entry.name;
  }

  localPath(key: string): string {
    return this.pathOf(key);
  }

  async check(): Promise<void> {
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  close(): void {
    // Nothing held open.
  }

  /** The key's path, refusing any key that would leave the data folder (`..`, absolute paths). */
  private pathOf(key: string): string {
    const full = resolve(this.root, key);
    if (!full.startsWith(resolve(this.root) + sep)) throw new Error(`Refusing a storage key outside the data folder: ${key}`);
    return full;
  }
}
