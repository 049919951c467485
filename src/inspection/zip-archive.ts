import { close, fstat } from 'node:fs';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import yauzl, { Entry, ZipFile } from 'yauzl';
import { quickFileCalls } from '../common/files/quick-file-calls';
import { MalformedBuildError } from './malformed-build.error';
import { WindowedFileReader } from './windowed-file-reader';

/** Central-directory entries looked at before an archive is refused (a million-entry zip stays cheap). */
const MAX_ENTRIES = 200_000;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/**
 * Deflated entries up to 64 kB, declaring at most 1 MB inflated, are inflated in one synchronous call
 * (a millisecond or two at most; the output is held to the declared size): zlib's stream would take a
 * thread-pool trip and an event-loop turn or two, which under load cost more than the inflating.
 * Larger ones stream, so a big entry (or a small one that inflates to a lot) never holds the event loop.
 */
const INFLATE_AT_ONCE_MAX = 64 * 1024;
const INFLATE_AT_ONCE_MAX_OUTPUT = 1024 * 1024;
const DEFLATED = 8;

const fstatFd = promisify(fstat);
const fromReader = promisify<yauzl.RandomAccessReader, number, yauzl.Options, ZipFile>(yauzl.fromRandomAccessReader);

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
  private constructor(
    private readonly zip: ZipFile,
    private readonly reader: WindowedFileReader,
    /** The archive file's size in bytes. */
    readonly size: number,
  ) {}

  /** `size`, when the caller knows it (an upload does), saves a `stat`. */
  static async open(path: string, size?: number): Promise<ZipArchive> {
    let fd: number | null = null;
    try {
      // A quick call from the event loop (quick-file-calls.ts): the upload's temp file was just written.
      fd = await quickFileCalls.open(path, 'r');
      const total = size ?? (await fstatFd(fd)).size;
      const reader = new WindowedFileReader(fd, total);
      const zip = await fromReader(reader, total, {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: true,
        strictFileNames: false,
      });
      return new ZipArchive(zip, reader, total);
    } catch (err) {
      if (fd !== null) close(fd, () => undefined);
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
        // The last record: done now, not one event-loop turn later when yauzl says 'end'.
        if (zip.entriesRead === zip.entryCount) return finish();
        zip.readEntry();
      });
      zip.readEntry();
    });
  }

  /** The entry's inflated bytes; refuses (without inflating) one that declares more than `maxBytes`. */
  async read(ref: ZipEntryRef, maxBytes: number, what: string): Promise<Buffer> {
    const { entry } = ref;
    if (entry.uncompressedSize > maxBytes) {
      throw new MalformedBuildError(`${what} is larger than ${maxBytes} bytes when uncompressed`);
    }
    const atOnce =
      entry.compressionMethod === DEFLATED &&
      !entry.isEncrypted() &&
      entry.compressedSize <= INFLATE_AT_ONCE_MAX &&
      entry.uncompressedSize <= INFLATE_AT_ONCE_MAX_OUTPUT;
    const unreadable = (err: Error) => new MalformedBuildError(`${what} cannot be read from the archive (${err.message})`);
    const stream = await this.zip.openReadStreamPromise(entry, atOnce ? { decodeFileData: false } : undefined).catch((err: Error) => {
      throw unreadable(err);
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
      stream.destroy();
      if (err instanceof MalformedBuildError) throw err;
      throw unreadable(err as Error);
    }
    const bytes = Buffer.concat(chunks, total);
    return atOnce ? inflateEntry(bytes, entry, unreadable) : bytes;
  }

  close(): void {
    this.zip.close();
  }

  /** Bytes [start, start + length) of the archive file itself (what lies outside the entries: the APK Signing Block). */
  readRange(start: number, length: number): Promise<Buffer> {
    const bytes = Buffer.alloc(length);
    return new Promise((resolve, reject) =>
      this.reader.read(bytes, 0, length, start, (err, got) =>
        err ? reject(err) : got !== length ? reject(new MalformedBuildError('The archive is truncated')) : resolve(bytes),
      ),
    );
  }

  /**
   * Where the central directory starts, from the end records (yauzl read and checked them on open,
   * but does not say). The end of the file is already in the reader's tail window.
   */
  async centralDirectoryOffset(): Promise<number> {
    const tailLength = Math.min(this.size, EOCD_SIZE + MAX_COMMENT);
    const tail = await this.readRange(this.size - tailLength, tailLength);
    for (let at = tailLength - EOCD_SIZE; at >= 0; at--) {
      if (tail.readUInt32LE(at) !== EOCD_SIGNATURE) continue;
      const offset = tail.readUInt32LE(at + 16);
      if (offset !== 0xffffffff) return offset;
      // zip64: the locator just before the end record points at the zip64 end record.
      if (at < ZIP64_LOCATOR_SIZE || tail.readUInt32LE(at - ZIP64_LOCATOR_SIZE) !== ZIP64_LOCATOR_SIGNATURE) break;
      const record = await this.readRange(Number(tail.readBigUInt64LE(at - ZIP64_LOCATOR_SIZE + 8)), 56);
      return Number(record.readBigUInt64LE(48));
    }
    throw new MalformedBuildError('The zip archive has no end of central directory record');
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_SIZE = 20;

/** A small deflated entry inflated in one call, held to the size its record declares (as yauzl's stream is). */
function inflateEntry(raw: Buffer, entry: Entry, unreadable: (err: Error) => MalformedBuildError): Buffer {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (err) {
    throw unreadable(err as Error);
  }
  if (inflated.length !== entry.uncompressedSize) {
    throw unreadable(new Error(`inflated to ${inflated.length} bytes, the archive says ${entry.uncompressedSize}`));
  }
  return inflated;
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
