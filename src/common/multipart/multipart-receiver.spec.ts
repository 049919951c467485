import busboy from 'busboy';
import { IncomingMessage } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { failWhenStalled, FileFieldRule, MultipartOptions, receiveMultipart, unexpectedFileField } from './multipart-receiver';

const MALFORMED = 'Malformed multipart/form-data body';

/** A small seeded PRNG (mulberry32): a failing case names its seed and replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `body` at random offsets, with runs of 1-byte chunks so a delimiter is cut at every offset. */
function split(body: Buffer, rand: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const size = rand() < 0.3 ? 1 : 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 200));
    chunks.push(body.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** Bytes that look like the delimiter's pieces, so near-misses and partial delimiters are common. */
function noisyBytes(rand: () => number, boundary: string, length: number): Buffer {
  const pieces = ['\r', '\n', '\r\n', '-', '--', `\r\n--`, `\r\n--${boundary.slice(0, -1)}`, `--${boundary}`, 'a', 'é', '\x00'];
  const parts: Buffer[] = [];
  let size = 0;
  while (size < length) {
    const piece = rand() < 0.5 ? Buffer.from([Math.floor(rand() * 256)]) : Buffer.from(pieces[Math.floor(rand() * pieces.length)]);
    parts.push(piece);
    size += piece.length;
  }
  return Buffer.concat(parts).subarray(0, length);
}

/** Part header blocks, the first three well formed; after them, ones busboy 1.6 refuses and @fastify/busboy skips. */
const HEADER_BLOCKS = (name: string, i: number) => [
  `Content-Disposition: form-data; name="${name}"; filename="b${i}.apk"\r\nContent-Type: application/octet-stream\r\n`,
  `Content-Disposition: form-data; name="${name}"\r\n`,
  `Content-Disposition: form-data; name="${name}"\r\nContent-Type: text/plain; charset=utf-8\r\n`,
  `Content-Disposition: form-data; name="${name}"; filename*=utf-8''%C3%A9.bin\r\n`,
  `Content-Disposition: form-data; name="${name}"; filename="é${i}.bin"\r\n`,
  `Content-Type: application/octet-stream\r\n`,
  `Content-Disposition: attachment; name="x"\r\n`,
  `Content-Disposition form-data\r\n`,
  '',
];
const WELL_FORMED_HEADERS = 5;

/**
 * A random multipart body: fields and files around a boundary, sometimes broken or cut short.
 * `sloppy` when a part's delimiter line, header block or blank line is broken (a reading the two
 * parsers are allowed to differ on: see the fuzz).
 */
function randomBody(rand: () => number, boundary: string): { body: Buffer; sloppy: boolean } {
  const out: Buffer[] = [];
  let sloppy = false;
  const pick = <T>(items: T[], good = items.length): T => {
    const at = Math.floor(rand() * items.length);
    if (at >= good) sloppy = true;
    return items[at];
  };
  if (rand() < 0.3) out.push(noisyBytes(rand, boundary, Math.floor(rand() * 20)));
  if (rand() < 0.8) out.push(Buffer.from('\r\n'));
  const parts = Math.floor(rand() * 5);
  for (let i = 0; i < parts; i++) {
    out.push(Buffer.from(`--${boundary}${pick(['\r\n', '\r\n', '\r\n', '  \r\n', '\n', '-x\r\n'], 3)}`));
    const headers = pick(HEADER_BLOCKS(pick(['apk', 'file', 'note', 'a', 'é']), i), WELL_FORMED_HEADERS);
    const blankLine = rand() < 0.9;
    if (!blankLine) sloppy = true;
    out.push(Buffer.from(`${headers}${blankLine ? '\r\n' : ''}`));
    out.push(noisyBytes(rand, boundary, Math.floor(rand() * (rand() < 0.2 ? 3000 : 120))));
    out.push(Buffer.from('\r\n'));
  }
  out.push(Buffer.from(pick([`--${boundary}--`, `--${boundary}--\r\n`, `--${boundary}--\r\nepilogue\r\n--${boundary}\r\n`, `--${boundary}-`, `--${boundary}`, ''])));
  const body = Buffer.concat(out);
  return { body: rand() < 0.15 ? body.subarray(0, Math.floor(rand() * body.length)) : body, sloppy };
}

/**
 * Whether some delimiter in `body` (the noise makes them too) is followed by neither CRLF nor the
 * closing `--`: busboy 1.6 refuses such a body, @fastify/busboy reads what follows as the next
 * part's header block (RFC 2046's transport padding is one such case).
 */
function hasLooseDelimiter(body: Buffer, boundary: string): boolean {
  const whole = Buffer.concat([Buffer.from('\r\n'), body]);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  for (let at = whole.indexOf(delimiter); at >= 0; at = whole.indexOf(delimiter, at + delimiter.length)) {
    const next = whole.toString('latin1', at + delimiter.length, at + delimiter.length + 2);
    if (next !== '\r\n' && next !== '--') return true;
  }
  return false;
}

/** Parts the body opens (delimiters followed by CRLF), whether it closes, and whether a delimiter follows the close. */
function shapeOf(body: Buffer, boundary: string): { parts: number; closed: boolean; delimiterAfterClose: boolean } {
  const whole = Buffer.concat([Buffer.from('\r\n'), body]).toString('latin1');
  const close = whole.indexOf(`\r\n--${boundary}--`);
  return {
    parts: whole.split(`\r\n--${boundary}\r\n`).length - 1,
    closed: close >= 0,
    delimiterAfterClose: close >= 0 && whole.includes(`\r\n--${boundary}`, close + boundary.length + 6),
  };
}

function pickBoundary(rand: () => number): string {
  const boundaries = ['b', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'x-y', `q${Math.floor(rand() * 1000)}`];
  return boundaries[Math.floor(rand() * boundaries.length)];
}

/** Random receiver options: which file fields are accepted and how large, how many fields and how long. */
function randomOptions(rand: () => number, tmpDir: string): MultipartOptions {
  const files: Record<string, FileFieldRule> = {};
  for (const field of ['apk', 'file', '*']) {
    if (rand() < 0.5) files[field] = { maxBytes: rand() < 0.5 ? 1 + Math.floor(rand() * 300) : 1024 * 1024, tooLargeMessage: rand() < 0.5 ? `${field} too large` : undefined };
  }
  if (!Object.keys(files).length) files.apk = { maxBytes: 1024 * 1024 };
  return { tmpDir, files, ...(rand() < 0.5 ? { maxFields: Math.floor(rand() * 3), maxFieldBytes: 1 + Math.floor(rand() * 100) } : {}) };
}

/**
 * A request as Node's HTTP parser hands one over: a real IncomingMessage, each read pushed as it
 * came (a chunk per read), `complete` set before the end.
 */
function requestOf(boundary: string, chunks: Buffer[]): Request {
  const req = new IncomingMessage(new Socket());
  req.headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  setImmediate(() => {
    for (const chunk of chunks) req.push(chunk);
    req.complete = true;
    req.push(null);
  });
  return req as Request;
}

type Outcome = { error: string } | { fields: Record<string, string>; files: { field: string; name: string; mimeType: string; bytes: string }[] };

/** What the relay makes of a body: its fields and files' bytes, or the error it answers; no temp file left. */
async function relayOutcome(boundary: string, chunks: Buffer[], options: MultipartOptions): Promise<Outcome> {
  try {
    const received = await receiveMultipart(requestOf(boundary, chunks), options);
    const files = received.files.map((f) => ({ field: f.field, name: f.originalName, mimeType: f.mimeType, bytes: readFileSync(f.path, 'latin1') }));
    await received.cleanup();
    return { fields: { ...received.fields }, files };
  } catch (err) {
    const left = readdirSync(options.tmpDir);
    if (left.length) throw new Error(`temp files left after "${(err as Error).message}": ${left.join(', ')}`);
    return { error: (err as Error).message };
  }
}

/**
 * The oracle: busboy 1.6 as shipped (its public API), under the receiver's own rules (accepted file
 * fields, one file per field and any other file refused, sizes, field and part counts, the first
 * error wins, its texts). A body busboy never finishes is one the relay must answer as malformed
 * (the stall check).
 */
async function busboyOutcome(boundary: string, chunks: Buffer[], options: MultipartOptions): Promise<Outcome> {
  const rules = Object.values(options.files);
  const largest = Math.max(...rules.map((r) => r.maxBytes));
  const maxFields = options.maxFields ?? 20;
  const parser = busboy({
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    // +1: busboy 1.6 reports a file or field of exactly the limit as over it; the relay keeps both.
    limits: { fileSize: largest + 1, files: rules.length + 1, fields: maxFields, fieldSize: (options.maxFieldBytes ?? 64 * 1024) + 1, parts: maxFields + rules.length + 1 },
    defParamCharset: 'utf8',
  });
  let error: string | null = null;
  const fail = (message: string) => void (error ??= message);
  const fields: Record<string, string> = {};
  const files: { field: string; name: string; mimeType: string; bytes: string }[] = [];
  const ended: Promise<void>[] = [];
  let anyFieldUsed = false;
  parser.on('field', (name, value, info) => (info.valueTruncated ? fail(`${name} is too long`) : (fields[name] = value)));
  parser.on('file', (field, stream, info) => {
    stream.on('error', () => fail(MALFORMED));
    let rule = options.files[field];
    if (!rule && options.files['*'] && !anyFieldUsed) {
      rule = options.files['*'];
      anyFieldUsed = true;
    }
    if (error) return void stream.resume();
    if (!rule || files.some((f) => f.field === field)) {
      stream.resume();
      return fail(unexpectedFileField(field));
    }
    const tooLarge = rule.tooLargeMessage ?? `File too large (limit ${rule.maxBytes} bytes)`;
    const file = { field, name: info.filename ?? '', mimeType: info.mimeType, bytes: '' };
    files.push(file);
    stream.on('data', (chunk: Buffer) => {
      file.bytes += chunk.toString('latin1');
      if (file.bytes.length > rule.maxBytes) fail(tooLarge);
    });
    stream.on('limit', () => fail(tooLarge));
    ended.push(new Promise((done) => stream.on('close', done)));
  });
  parser.on('fieldsLimit', () => fail('Too many form fields'));
  parser.on('partsLimit', () => fail('Too many form parts'));
  const closed = new Promise<boolean>((done) => {
    parser.on('error', () => {
      fail(MALFORMED);
      done(true);
    });
    parser.on('close', () => done(true));
  });
  for (const chunk of chunks) if (!parser.destroyed && !error) parser.write(chunk);
  if (!parser.destroyed && !error) parser.end();
  if (!error && !(await Promise.race([closed, new Promise<boolean>((done) => setTimeout(() => done(false), 100))]))) fail(MALFORMED);
  await Promise.race([Promise.all(ended), new Promise((done) => setTimeout(done, 50))]);
  return error ? { error } : { fields, files };
}

describe('receiveMultipart (multipart bodies through @fastify/busboy)', () => {
  let tmpDir: string;
  beforeEach(() => (tmpDir = mkdtempSync(join(tmpdir(), 'svc-multipart-'))));
  afterEach(() => rmSync(tmpDir, { recursive: true, force: true }));

  it('answers as busboy 1.6 under the same rules would, on random bodies split at random chunk boundaries', async () => {
    const tally = { same: 0, refusedBoth: 0, readLeniently: 0, refusedUnfinished: 0 };
    for (let seed = 1; seed <= 2500; seed++) {
      const rand = random(seed);
      const boundary = pickBoundary(rand);
      const { body, sloppy } = randomBody(rand, boundary);
      const chunks = split(body, rand);
      const options = randomOptions(rand, tmpDir);
      const expected = await busboyOutcome(boundary, chunks, options);
      const actual = await relayOutcome(boundary, chunks, options);
      const differ = () => new Error(`seed ${seed}:\n${JSON.stringify(actual)}\n!=\n${JSON.stringify(expected)}`);
      if (!('error' in actual) && !('error' in expected)) {
        // A body both read: the same fields, and the same bytes on disk under the same names and types.
        if (JSON.stringify(actual) !== JSON.stringify(expected)) throw differ();
        tally.same++;
      } else if ('error' in actual && 'error' in expected) {
        // Both refuse; with several faults in one body, which is met first may differ.
        tally.refusedBoth++;
      } else if ('error' in actual) {
        // busboy 1.6 lets through a body that never closes, or opens more parts than the limit.
        const shape = shapeOf(body, boundary);
        const maxParts = (options.maxFields ?? 20) + Object.keys(options.files).length + 1;
        if (shape.closed && shape.parts <= maxParts) throw differ();
        tally.refusedUnfinished++;
      } else {
        // Read where busboy 1.6 refused: only a broken delimiter line or header block, which
        // @fastify/busboy reads past (the part skipped, or its headers read leniently), or a
        // delimiter line in the epilogue, which RFC 2046 has ignored and busboy 1.6 does not.
        if (!sloppy && !hasLooseDelimiter(body, boundary) && !shapeOf(body, boundary).delimiterAfterClose) throw differ();
        tally.readLeniently++;
      }
    }
    // The bodies reach every case, valid ones most of all (fewer since a file in a field not taken is refused: 570 of 2500).
    expect(tally.same).toBeGreaterThan(500);
    expect(tally.refusedBoth).toBeGreaterThan(1000);
  }, 120_000);

  it('keeps a file or a field of exactly its limit and refuses one byte more, with the 413 and 400 texts', async () => {
    const body = (apk: number, icon: number, note: number) =>
      Buffer.from(
        `--b\r\nContent-Disposition: form-data; name="note"\r\n\r\n${'n'.repeat(note)}\r\n` +
          `--b\r\nContent-Disposition: form-data; name="apk"; filename="a.apk"\r\n\r\n${'a'.repeat(apk)}\r\n` +
          `--b\r\nContent-Disposition: form-data; name="icon"; filename="i.png"\r\nContent-Type: image/png\r\n\r\n${'i'.repeat(icon)}\r\n--b--\r\n`,
      );
    const options = { tmpDir, files: { apk: { maxBytes: 100, tooLargeMessage: 'Build file too large' }, icon: { maxBytes: 10 } }, maxFieldBytes: 10 };
    expect(await relayOutcome('b', [body(100, 10, 10)], options)).toEqual({
      fields: { note: 'n'.repeat(10) },
      files: [
        { field: 'apk', name: 'a.apk', mimeType: 'text/plain', bytes: 'a'.repeat(100) },
        { field: 'icon', name: 'i.png', mimeType: 'image/png', bytes: 'i'.repeat(10) },
      ],
    });
    expect(await relayOutcome('b', [body(101, 10, 10)], options)).toEqual({ error: 'Build file too large' });
    expect(await relayOutcome('b', [body(100, 11, 10)], options)).toEqual({ error: 'File too large (limit 10 bytes)' });
    expect(await relayOutcome('b', [body(100, 10, 11)], options)).toEqual({ error: 'note is too long' });
  });

  it('refuses a file part in a field it does not take, or a second one in a field, naming the field (shortened)', async () => {
    const file = (name: string) => `--b\r\nContent-Disposition: form-data; name="${name}"; filename="a"\r\n\r\nbytes\r\n`;
    const options = { tmpDir, files: { apk: { maxBytes: 1024 } } };
    const long = 'n'.repeat(13_700);
    expect(await relayOutcome('b', [Buffer.from(`${file('apk')}${file(long)}--b--\r\n`)], options)).toEqual({ error: `Unexpected file field ${'n'.repeat(100)}…` });
    expect(await relayOutcome('b', [Buffer.from(`${file('apk')}${file('apk')}--b--\r\n`)], options)).toEqual({ error: 'Unexpected file field apk' });
    const anyName = { tmpDir, files: { '*': { maxBytes: 1024 } } };
    expect(await relayOutcome('b', [Buffer.from(`${file('x')}${file('y')}--b--\r\n`)], anyName)).toEqual({ error: 'Unexpected file field y' });
  });

  it('answers, not never, when the parser skips large parts itself (not form-data) and stops taking the body', async () => {
    const skipped = (i: number) => Buffer.concat([Buffer.from(`--b\r\nContent-Disposition: attachment; name="x${i}"\r\n\r\n`), Buffer.alloc(3_200_000, 0x61), Buffer.from('\r\n')]);
    const body = Buffer.concat([skipped(1), skipped(2), Buffer.from('--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--b--\r\n')]);
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += 65_536) chunks.push(body.subarray(at, at + 65_536));
    // Either read (the skipped parts dropped) or refused as malformed; never left without an answer.
    for (let i = 0; i < 8; i++) {
      const outcome = await relayOutcome('b', chunks, { tmpDir, files: { apk: { maxBytes: 1024 } } });
      expect([{ fields: { note: 'hi' }, files: [] }, { error: MALFORMED }]).toContainEqual(outcome);
    }
  }, 60_000);

  it('answers 400, not never, when a file part’s header block is ended by the closing delimiter', async () => {
    const chunks = [Buffer.from(`--b\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\n--b\r\n--`)];
    const options = { tmpDir, files: { f: { maxBytes: 1024 } } };
    await expect(relayOutcome('b', chunks, options)).resolves.toEqual({ error: MALFORMED });
  });
});

describe('failWhenStalled (the public check against a parser that has the whole body and settles nothing)', () => {
  /** busboy 1.6 fed a whole body, as the relay pipes one: what the check is given, and how the parser ended. */
  async function watch(body: string): Promise<{ failed: string | null; parserClosed: boolean }> {
    const parser = busboy({ headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    const parts: Readable[] = [];
    let parserClosed = false;
    parser.on('file', (_name, stream) => {
      parts.push(stream);
      stream.on('error', () => undefined).resume();
    });
    parser.on('error', () => undefined);
    parser.on('close', () => (parserClosed = true));
    let failed: string | null = null;
    parser.end(Buffer.from(body));
    failWhenStalled(parser, parts, () => parserClosed, (err) => (failed = err.message));
    await new Promise((done) => setTimeout(done, 500));
    return { failed, parserClosed };
  }

  it('fails busboy 1.6 as shipped, left with an open file stream after the closing delimiter, as malformed', async () => {
    expect(await watch(`--b\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\n--b\r\n--`)).toEqual({ failed: MALFORMED, parserClosed: false });
  });

  it('leaves a parser that finishes alone', async () => {
    expect(await watch(`--b\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nbytes\r\n--b--\r\n`)).toEqual({ failed: null, parserClosed: true });
  });
});
