import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { SPOOL_WRITE_BYTES, spoolBuffered, spoolTo } from './file-spool';

describe('spoolTo and spoolBuffered (multipart file parts to disk)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-spool-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Spools `chunks` to a file and resolves with its bytes, the writes' sizes and how often the source paused. */
  async function spool(
    chunks: Buffer[],
    atMostBytes?: number,
    spooler: (source: Readable, out: ReturnType<typeof createWriteStream>, atMostBytes?: number) => void = spoolBuffered,
  ): Promise<{ bytes: Buffer; writes: number[]; pauses: number }> {
    const path = join(dir, 'out.bin');
    const out = createWriteStream(path);
    const writes: number[] = [];
    const write = out.write.bind(out) as (chunk: Buffer, cb: (err?: Error | null) => void) => boolean;
    out.write = ((chunk: Buffer, cb: (err?: Error | null) => void) => {
      writes.push(chunk.length);
      return write(chunk, cb);
    }) as typeof out.write;
    const source = Readable.from(chunks, { objectMode: false });
    let pauses = 0;
    source.on('pause', () => pauses++);
    spooler(source, out, atMostBytes);
    await new Promise<void>((resolve, reject) => out.on('close', () => resolve()).on('error', reject));
    return { bytes: readFileSync(path), writes, pauses };
  }

  /** Chunks of changing sizes (1 byte to 200 kB) covering `data`. */
  function chunked(data: Buffer): Buffer[] {
    const chunks: Buffer[] = [];
    for (let at = 0, size = 1; at < data.length; at += size, size = (size * 7 + 13) % 200_000) chunks.push(data.subarray(at, at + size));
    return chunks;
  }

  it('spoolTo writes exactly the bytes received from the event loop, none through the stream, and ends the file', async () => {
    const data = randomBytes(3 * SPOOL_WRITE_BYTES + 999);
    const { bytes, writes, pauses } = await spool(chunked(data), undefined, spoolTo);
    expect(bytes.equals(data)).toBe(true);
    expect(writes).toEqual([]);
    expect(pauses).toBe(0);
  });

  it('spoolTo hands the rest of the file to the buffered writes after a slow write', async () => {
    const data = randomBytes(3 * SPOOL_WRITE_BYTES + 999);
    // Every write counts as slow: the first chunk written directly, then the rest buffered. The
    // chunks start once the file is open (chunks that arrive before are all written directly).
    const { bytes, writes } = await spool(chunked(data), undefined, (source, out, atMost) => {
      const afterOpen = new PassThrough();
      spoolTo(afterOpen, out, atMost, -1);
      out.once('ready', () => source.pipe(afterOpen));
    });
    expect(bytes.equals(data)).toBe(true);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.reduce((a, b) => a + b, 0)).toBeLessThan(data.length);
  });

  it('spoolTo creates an empty file for an empty part', async () => {
    const { bytes } = await spool([], undefined, spoolTo);
    expect(bytes.length).toBe(0);
  });

  it('writes exactly the bytes received, in full 1 MB writes but the last, across chunk boundaries', async () => {
    const data = randomBytes(5 * SPOOL_WRITE_BYTES + 12_345);
    const { bytes, writes, pauses } = await spool(chunked(data));
    expect(bytes.equals(data)).toBe(true);
    expect(writes.slice(0, -1).every((n) => n === SPOOL_WRITE_BYTES)).toBe(true);
    expect(writes.at(-1)).toBe(12_345);
    // Two buffers, and the source far faster than the disk: it must have been paused, not buffered.
    expect(pauses).toBeGreaterThan(0);
  });

  it('sizes its buffers by the declared length: a small file is one write of its own size', async () => {
    const data = randomBytes(9_000);
    const small = await spool([data.subarray(0, 5_000), data.subarray(5_000)], 9_500);
    expect(small.bytes.equals(data)).toBe(true);
    expect(small.writes).toEqual([9_000]);
    const bigger = await spool([randomBytes(20_000)], 8_192);
    expect(bigger.writes).toEqual([8_192, 8_192, 3_616]);
  });

  it('creates an empty file for an empty part', async () => {
    const { bytes, writes } = await spool([]);
    expect(bytes.length).toBe(0);
    expect(writes).toEqual([]);
  });
});
