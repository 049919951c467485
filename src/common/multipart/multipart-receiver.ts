import { Busboy, BusboyHeaders, BusboyInstance } from '@fastify/busboy';
import type { Request } from 'express';
import { createWriteStream, mkdirSync, statfsSync, WriteStream } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { randomHex } from '../crypto/secret-token';
import { quickWriteStreamCalls } from '../files/quick-file-calls';
import { badRequest, payloadTooLarge, HttpError } from '../errors/http-error';
import { leaveRequestDeadline } from '../net/request-deadline';
import { spoolTo } from './file-spool';

export interface FileFieldRule {
  maxBytes: number;
  /** Message of the 413 when the file is larger (default names the limit in bytes). */
  tooLargeMessage?: string;
}

export interface MultipartOptions {
  /** Folder for the temporary files (under the data dir, so a final rename stays on one disk). */
  tmpDir: string;
  /**
   * Accepted file fields by name, one file each; `'*'` accepts one file in a field of any name. Any
   * other file part (or a second one in a field) is refused: 400 `Unexpected file field <name>`.
   */
  files: Record<string, FileFieldRule>;
  maxFields?: number;
  maxFieldBytes?: number;
  /**
   * Free space to keep on the data disk (`DISK_RESERVE_BYTES` for builds and recordings). When set,
   * a body whose Content-Length does not fit is refused (507) before any byte is written, and free
   * space is checked again while writing.
   */
  minFreeBytes?: number;
}

export interface ReceivedFile {
  field: string;
  /** Temp path on disk; the caller moves it into place or calls cleanup(). */
  path: string;
  originalName: string;
  mimeType: string;
  size: number;
  /** First bytes of the content (up to HEAD_BYTES), for magic-number and container-header checks. */
  head: Buffer;
}

export interface ReceivedMultipart {
  fields: Record<string, string>;
  files: ReceivedFile[];
  file(field: string): ReceivedFile | undefined;
  /** Removes every temp file not yet moved away. Safe to call more than once. */
  cleanup(): Promise<void>;
  /** The caller moved this file into place: cleanup() leaves its former path alone (no wasted unlink). */
  moved(file: ReceivedFile): void;
}

/** Free space kept on the data disk by the large uploads (builds, recordings): eating into it is a 507. */
export const DISK_RESERVE_BYTES = 64 * 1024 * 1024;
/**
 * Bytes of each file kept in memory for content checks: enough for a whole EBML header even when a
 * writer spends 8 bytes on every element size (libebml does), not just a magic number.
 */
export const HEAD_BYTES = 4 * 1024;
const TEMP_PREFIX = 'upload-';
const TEMP_SUFFIX = '.part';
const TEMP_NAME = /^upload-[0-9a-f]+\.part$/;

/** A fresh temp file name in `tmpDir` of the shape sweepTempUploads removes after a crash. */
export function tempUploadPath(tmpDir: string): string {
  return join(tmpDir, `${TEMP_PREFIX}${randomHex(12)}${TEMP_SUFFIX}`);
}

/**
 * Removes temp files of uploads interrupted by a crash: every uploader (builds, recordings,
 * images) streams through receiveMultipart, so its temp names are the only ones to look for.
 * Files modified after `cutoffMs` are kept (a live upload keeps its file's mtime fresh).
 */
export async function sweepTempUploads(tmpDir: string, cutoffMs: number): Promise<number> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names.filter((n) => TEMP_NAME.test(n))) {
    const info = await stat(join(tmpDir, name)).catch(() => null);
    if (!info || info.mtimeMs > cutoffMs) continue;
    await unlink(join(tmpDir, name)).catch(() => undefined);
    removed++;
  }
  return removed;
}

/**
 * Streams a multipart request to temp files as it arrives (never a whole file in memory),
 * enforcing size limits while bytes arrive. On any failure (limit, abort, malformed body) every
 * partial file is removed before the error is thrown.
 */
export function receiveMultipart(req: Request, options: MultipartOptions): Promise<ReceivedMultipart> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    return Promise.reject(badRequest('Expected a multipart/form-data body'));
  }
  const rules = Object.values(options.files);
  const largest = rules.length ? Math.max(...rules.map((r) => r.maxBytes)) : 0;
  const declared = Number(req.headers['content-length']);
  const overhead = 64 * 1024 + (options.maxFields ?? 20) * (options.maxFieldBytes ?? 64 * 1024);
  if (rules.length && Number.isFinite(declared) && declared > largest * Math.max(1, rules.length) + overhead) {
    const rule = rules.find((r) => r.maxBytes === largest)!;
    refuseRest(req);
    return Promise.reject(payloadTooLarge(tooLargeMessage(rule)));
  }
  mkdirSync(options.tmpDir, { recursive: true });
  if (options.minFreeBytes !== undefined) {
    const needed = (Number.isFinite(declared) ? declared : 0) + options.minFreeBytes;
    if (freeBytes(options.tmpDir) < needed) {
      refuseRest(req);
      return Promise.reject(notEnoughSpace());
    }
  }

  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: ReceivedFile[] = [];
    const writes: Promise<void>[] = [];
    const openStreams = new Set<WriteStream>();
    /** Every file part the parser opened, read or skipped (for the stall check). */
    const fileParts: Readable[] = [];
    let failed: Error | null = null;
    let parsed = false;
    let anyFieldUsed = false;

    const cleanup = async () => {
      await Promise.all(files.splice(0).map((f) => unlink(f.path).catch(() => undefined)));
    };
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      for (const stream of openStreams) stream.destroy();
      req.unpipe(parser);
      refuseRest(req);
      Promise.allSettled(writes)
        .then(cleanup)
        .then(() => reject(err));
    };

    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: req.headers as BusboyHeaders,
        limits: {
          // 'limit' comes once a file passes fileSize (a field is truncated once it passes
          // fieldSize), so one of exactly its limit is kept; the per-rule check below is exact for
          // the smaller file limits.
          fileSize: largest,
          // One file more than the rules take, so that the first unexpected one comes to 'file' and
          // is refused there: a part busboy skips by itself can stall it for good (docs/robustness.md).
          files: Object.keys(options.files).length + 1,
          fields: options.maxFields ?? 20,
          fieldSize: options.maxFieldBytes ?? 64 * 1024,
          parts: (options.maxFields ?? 20) + Object.keys(options.files).length + 1,
          // A part's header block kept to busboy 1.6's (and Node's) 16 KiB, not @fastify/busboy's 80.
          headerSize: 16 * 1024,
        },
      });
    } catch {
      reject(badRequest('Malformed multipart/form-data body'));
      return;
    }

    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) return fail(badRequest(`${name} is too long`));
      fields[name] = value;
    });

    parser.on('file', (field, stream, filename, _encoding, mimeType) => {
      fileParts.push(stream);
      // The parser destroys a file stream whose part the body ends inside ("Part terminated
      // early"); unlistened, that 'error' event would take the whole process down.
      stream.on('error', () => fail(badRequest('Malformed multipart/form-data body')));
      let rule = options.files[field];
      if (!rule && options.files['*'] && !anyFieldUsed) {
        rule = options.files['*'];
        anyFieldUsed = true;
      }
      if (failed) return void stream.resume();
      if (!rule || files.some((f) => f.field === field)) {
        stream.resume();
        return fail(badRequest(unexpectedFileField(field)));
      }
      const path = tempUploadPath(options.tmpDir);
      const received: ReceivedFile = {
        field,
        path,
        originalName: filename ?? '',
        mimeType,
        size: 0,
        head: Buffer.alloc(0),
      };
      files.push(received);
      // Opened and closed from the event loop (quick-file-calls.ts): two thread-pool trips fewer per file.
      const out = createWriteStream(path, { flags: 'wx', fs: quickWriteStreamCalls });
      openStreams.add(out);
      let nextSpaceCheck = SPACE_CHECK_EVERY;
      stream.on('data', (chunk: Buffer) => {
        received.size += chunk.length;
        if (options.minFreeBytes !== undefined && received.size >= nextSpaceCheck) {
          nextSpaceCheck += SPACE_CHECK_EVERY;
          if (freeBytes(options.tmpDir) < options.minFreeBytes) return fail(notEnoughSpace());
        }
        if (received.head.length < HEAD_BYTES) {
          received.head = Buffer.concat([received.head, chunk.subarray(0, HEAD_BYTES - received.head.length)]);
        }
        if (received.size > rule.maxBytes) fail(payloadTooLarge(tooLargeMessage(rule)));
      });
      stream.on('limit', () => fail(payloadTooLarge(tooLargeMessage(rule))));
      writes.push(
        new Promise<void>((done) => {
          out.on('close', () => {
            openStreams.delete(out);
            done();
          });
          out.on('error', (err) => {
            fail(diskError(err));
            done();
          });
        }),
      );
      spoolTo(stream, out, Number.isFinite(declared) ? declared : undefined);
    });

    parser.on('filesLimit', () => undefined);
    parser.on('fieldsLimit', () => fail(badRequest('Too many form fields')));
    parser.on('partsLimit', () => fail(badRequest('Too many form parts')));
    parser.on('error', () => fail(badRequest('Malformed multipart/form-data body')));
    // @fastify/busboy's 'finish': every part read and each file stream ended (also after an 'error').
    parser.on('finish', () => {
      parsed = true;
      Promise.all(writes).then(() => {
        if (failed) return;
        resolve({
          fields,
          files,
          file: (field) => files.find((f) => f.field === field),
          cleanup,
          moved: (file) => {
            const index = files.indexOf(file);
            if (index >= 0) files.splice(index, 1);
          },
        });
      });
    });

    req.on('aborted', () => fail(badRequest('Upload aborted by the client')));
    req.on('close', () => {
      if (!req.complete) fail(badRequest('Upload aborted by the client'));
    });
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    failWhenStalled(parser, fileParts, () => parsed || failed !== null, fail, () => bodyBytes);
    leaveRequestDeadline(req);
    req.pipe(parser);
  });
}

/** How often the stall check looks; it fails on the second stalled look in a row. */
const STALL_CHECK_MS = 100;

/**
 * Uploads have no request deadline, so a parser that stops taking the body and settles nothing
 * would leave the request unanswered until the idle timeout cut it without an answer. Two ways seen:
 * - busboy 1.6 on a file part whose header block was ended by the closing delimiter
 *   (`…filename=a\r\n\r\n--B\r\n--`) opened a file stream after the end and never ended it: the
 *   parser has taken in the whole body (ended, nothing left to write) but does not finish.
 * - @fastify/busboy's Dicer, on a part it skips itself (not form-data, or past a limit), can end
 *   that part while waiting for it to be read, and then never takes another byte (issue 36: a body
 *   of large parts under unexpected names, 7 times in 8): bytes sit in the parser's buffer and
 *   neither they nor the body's count move.
 * Told by public state only, while no file part is being read (each has ended, or holds no bytes
 * and is not paused by the spool, which pauses while the disk is slow), on two looks in a row;
 * then the body is answered 400 as malformed. Runs from the first byte: a stalled parser holds the
 * request back, so its 'end' may never come.
 */
export function failWhenStalled(
  parser: Pick<Writable, 'writableEnded' | 'writableLength'>,
  fileParts: readonly Readable[],
  settled: () => boolean,
  fail: (err: HttpError) => void,
  bodyBytes: () => number = () => 0,
): void {
  let looks = 0;
  let before = '';
  const timer = setInterval(() => {
    if (settled()) return clearInterval(timer);
    const now = `${bodyBytes()}:${parser.writableLength}`;
    const unfinished = parser.writableEnded && parser.writableLength === 0;
    const stuck = parser.writableLength > 0 && now === before;
    before = now;
    const partsIdle = fileParts.every((part) => part.readableEnded || (part.readableLength === 0 && !part.isPaused()));
    looks = partsIdle && (unfinished || stuck) ? looks + 1 : 0;
    if (looks < 2) return;
    clearInterval(timer);
    fail(badRequest('Malformed multipart/form-data body'));
  }, STALL_CHECK_MS);
  timer.unref();
}

/** Names as a client sent them can be megabytes long (a fuzzer's were 13.7k characters): the message shows the start. */
const FIELD_NAME_SHOWN = 100;

export function unexpectedFileField(field: string): string {
  const shown = field.length > FIELD_NAME_SHOWN ? `${field.slice(0, FIELD_NAME_SHOWN)}…` : field;
  return `Unexpected file field ${shown}`;
}

function tooLargeMessage(rule: FileFieldRule): string {
  return rule.tooLargeMessage ?? `File too large (limit ${rule.maxBytes} bytes)`;
}

/** After refusing a body, close the connection once the answer is sent rather than reading the rest. */
export function refuseRest(req: Request): void {
  req.res?.setHeader('Connection', 'close');
}

/** While writing, free space is re-checked after every this many bytes. */
const SPACE_CHECK_EVERY = 16 * 1024 * 1024;

/** Free bytes on the disk holding `dir` (for the disk reserve: resumable uploads check it too). */
export function freeBytes(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY; // statfs unsupported: rely on ENOSPC while writing
  }
}

export function notEnoughSpace(): HttpError {
  return new HttpError(507, 'Not enough disk space on the relay to store this upload');
}

function diskError(err: NodeJS.ErrnoException): HttpError {
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT') return notEnoughSpace();
  return new HttpError(500, 'Internal server error');
}
