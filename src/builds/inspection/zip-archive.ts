import { promisify } from 'node:util';
import yauzl, { Entry, ZipFile } from 'yauzl';
import { MalformedBuildError } from './malformed-build.error';

/** Central-directory entries looked at before an archive is refused (a million-entry zip stays cheap). */
const MAX_ENTRIES = 200_000;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

const openZip = promisify<string, yauzl.Options, ZipFile>(yauzl.open);

/** An archive entry name that is safe to consider: no absolute path, no `..`, no backslashes, no NUL. */
export function safeEntryName(name: string): string | null {
  const normalized = name.replace(/^(\.\/)+/, '');
  if (!normalized || normalized.includes('\0') || normalized.includes('\\')) return null;
  if (normalized.startsWith('/') || /^[a-zA-Z]:/.test(normalized)) return null;
  if (normalized.split('/').some((part) => part === '..')) return null;
  return normalized;
}

export interface ZipEntryRef {
  name: string;
  entry: Entry;
}

/**
 * A zip read from its central directory only (yauzl, lazy): entries are listed without touching
 * their data, and one entry's bytes are read on demand with a cap on the inflated size.
 * Unsafe names and symbolic links are skipped.
 */
export class ZipArchive {
  private constructor(private readonly zip: ZipFile) {}

  static async open(path: string): Promise<ZipArchive> {
    try {
      const zip = await openZip(path, {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: true,
        strictFileNames: false,
      });
      return new ZipArchive(zip);
    } catch (err) {
      throw new MalformedBuildError(`The file is not a readable zip archive (${(err as Error).message})`);
    }
  }

  /** Walks the central directory; `visit` returns true to stop early. */
  async scan(visit: (ref: ZipEntryRef) => boolean | void): Promise<void> {
    const zip = this.zip;
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      const finish = (err?: Error) => {
        zip.removeAllListeners('entry');
        zip.removeAllListeners('end');
        zip.removeAllListeners('error');
        zip.on('error', () => undefined);
        if (err) reject(err);
        else resolve();
      };
      zip.on('error', (err: Error) => finish(new MalformedBuildError(`The zip archive is corrupt (${err.message})`)));
      zip.on('end', () => finish());
      zip.on('entry', (entry: Entry) => {
        if (++seen > MAX_ENTRIES) return finish(new MalformedBuildError(`The archive has more than ${MAX_ENTRIES} entries`));
        const name = safeEntryName(decodeName(entry));
        const isLink = ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
        if (name && !isLink && !name.endsWith('/') && visit({ name, entry })) return finish();
        zip.readEntry();
      });
      zip.readEntry();
    });
  }

  /** The entry's inflated bytes; refuses (without inflating) one that declares more than `maxBytes`. */
  async read(ref: ZipEntryRef, maxBytes: number, what: string): Promise<Buffer> {
    if (ref.entry.uncompressedSize > maxBytes) {
      throw new MalformedBuildError(`${what} is larger than ${maxBytes} bytes when uncompressed`);
    }
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(ref.entry, (err, s) => (err ? reject(err) : resolve(s!))),
    ).catch((err: Error) => {
      throw new MalformedBuildError(`${what} cannot be read from the archive (${err.message})`);
    });
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) throw new MalformedBuildError(`${what} is larger than ${maxBytes} bytes when uncompressed`);
        chunks.push(chunk);
      }
    } catch (err) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      if (err instanceof MalformedBuildError) throw err;
      throw new MalformedBuildError(`${what} cannot be read from the archive (${(err as Error).message})`);
    }
    return Buffer.concat(chunks, total);
  }

  close(): void {
    this.zip.close();
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Names are UTF-8 when flag bit 11 says so. Without it the format says CP437, but macOS (ditto,
 * Finder) and most current zippers write UTF-8 without setting the flag: a name that is valid UTF-8
 * is read as UTF-8, anything else as latin1 (ASCII names are the same either way).
 */
function decodeName(entry: Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  if (entry.generalPurposeBitFlag & 0x800) return raw.toString('utf8');
  try {
    return strictUtf8.decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}
