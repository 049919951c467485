/**
 * bench/multipart-parsers: the multipart parsers the relay could receive uploads with, in this process,
 * nothing else: one 500 MB body (BENCH_MB) of two fields and one file, the file's bytes those of
 * bench:upload's APK (writeBigApk's pattern), written to each parser in 64 KiB chunks (a socket's reads)
 * with backpressure honoured, the file's bytes counted and dropped. BENCH_ROUNDS (6) rounds, the
 * parsers interleaved, each round starting with the next one. Per parse: the main thread's CPU time
 * (user + system, /proc tick resolution, 10 ms), the whole process's CPU time (the collector's helper
 * threads too) and wall time; medians printed, and each parser's bytes and fields checked.
 * Parsers: busboy 1.6 as shipped and @fastify/busboy (the relay's; skipped, saying so, when not
 * installed); BENCH_PARSERS=name,name to pick. Until issue 23 the relay ran busboy 1.6 with its boundary
 * search swapped for one on Buffer.indexOf (docs/decisions.md#issue-23-multipart has the three compared).
 * Run: npx ts-node --transpile-only bench/multipart-parsers.ts   (not part of npm test)
 */
import busboy from 'busboy';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Writable } from 'node:stream';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;
const SIZE = Number(process.env.BENCH_MB ?? 500) * MB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BOUNDARY = '----svcbench1732665600000';
const HEADERS = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
const FIELDS = { version_name: '1.4.2', release_notes: 'Bench build: the parsers compared on the same bytes.' };

/** What a parse must report, whichever parser. */
interface Parsed {
  fields: Record<string, string>;
  fileBytes: number;
}

/** A parser the relay could use: given where to report, the Writable to write the body into. */
interface Candidate {
  name: string;
  /** Why it cannot run here (not installed), or null. */
  missing: string | null;
  open(done: (err: Error | null, parsed: Parsed) => void): Writable;
}

const candidates: Candidate[] = [
  {
    name: 'busboy 1.6',
    missing: null,
    open(done) {
      const parsed: Parsed = { fields: {}, fileBytes: 0 };
      const parser = busboy({ headers: HEADERS, defParamCharset: 'utf8' });
      parser.on('field', (name, value) => (parsed.fields[name] = value));
      parser.on('file', (_name, stream) => stream.on('data', (chunk: Buffer) => (parsed.fileBytes += chunk.length)));
      parser.on('error', (err: Error) => done(err, parsed));
      parser.on('close', () => done(null, parsed));
      return parser;
    },
  },
  fastifyBusboy(),
];

function fastifyBusboy(): Candidate {
  const name = '@fastify/busboy';
  let Busboy: typeof import('@fastify/busboy').Busboy | null = null;
  try {
    Busboy = (require('@fastify/busboy') as typeof import('@fastify/busboy')).Busboy;
  } catch {
    // reported below as skipped
  }
  return {
    name: Busboy ? `${name} ${installedVersion(name)}` : name,
    missing: Busboy ? null : `${name} is not installed`,
    open(done) {
      const parsed: Parsed = { fields: {}, fileBytes: 0 };
      const parser = new Busboy!({ headers: HEADERS });
      parser.on('field', (field, value) => (parsed.fields[field] = value));
      parser.on('file', (_field, stream) => stream.on('data', (chunk: Buffer) => (parsed.fileBytes += chunk.length)));
      parser.on('error', (err: Error) => done(err, parsed));
      parser.on('finish', () => done(null, parsed));
      return parser;
    },
  };
}

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
}

/**
 * The body as 64 KiB chunks, made once: the file's bytes repeat every 4 MB (writeBigApk writes one 4 MB
 * buffer over and over), so the chunks wholly inside the file repeat every 64 chunks.
 */
function bodyChunks(): { count: number; at(index: number): Buffer; length: number } {
  const head = Buffer.from(
    Object.entries(FIELDS)
      .map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.apk"\r\n` +
      `Content-Type: application/vnd.android.package-archive\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const period = 4 * MB;
  const pattern = Buffer.alloc(period);
  for (let i = 0; i < period; i += 4) pattern.writeUInt32LE((i * 2654435761) >>> 0, i);
  const length = head.length + SIZE + tail.length;
  const byteAt = (offset: number): number => {
    if (offset < head.length) return head[offset];
    if (offset < head.length + SIZE) return pattern[(offset - head.length) % period];
    return tail[offset - head.length - SIZE];
  };
  const count = Math.ceil(length / CHUNK);
  const cache = new Map<string, Buffer>();
  return {
    count,
    length,
    at(index) {
      const start = index * CHUNK;
      const end = Math.min(length, start + CHUNK);
      const inFile = start >= head.length && end <= head.length + SIZE;
      const key = inFile ? `f${(start - head.length) % period}` : `b${index}`;
      let chunk = cache.get(key);
      if (!chunk) {
        chunk = Buffer.allocUnsafe(end - start);
        for (let i = 0; i < chunk.length; i++) chunk[i] = byteAt(start + i);
        if (inFile) cache.set(key, chunk);
      }
      return chunk;
    },
  };
}

/** CPU ms of this process's main thread (Linux; null elsewhere). */
function mainThreadCpuMs(): number | null {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

interface Sample {
  mainCpu: number | null;
  processCpu: number;
  wall: number;
}

async function parseOnce(candidate: Candidate, body: ReturnType<typeof bodyChunks>): Promise<Sample> {
  global.gc?.();
  const main = mainThreadCpuMs();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const parsed = await new Promise<Parsed>((resolve, reject) => {
    let settled = false;
    const parser = candidate.open((err, result) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(result);
    });
    let index = 0;
    const writeMore = () => {
      while (index < body.count) {
        if (!parser.write(body.at(index++))) return void parser.once('drain', writeMore);
      }
      parser.end();
    };
    writeMore();
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const spent = process.cpuUsage(cpu);
  const mainAfter = mainThreadCpuMs();
  if (parsed.fileBytes !== SIZE || JSON.stringify(parsed.fields) !== JSON.stringify(FIELDS)) {
    throw new Error(`${candidate.name}: parsed ${parsed.fileBytes} file bytes (expected ${SIZE}), fields ${JSON.stringify(parsed.fields)}`);
  }
  return { mainCpu: main === null || mainAfter === null ? null : mainAfter - main, processCpu: (spent.user + spent.system) / 1000, wall };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const picked = process.env.BENCH_PARSERS?.split(',').map((name) => name.trim());
  const running = candidates.filter((c) => !picked || picked.some((name) => c.name.startsWith(name)));
  for (const c of running.filter((c) => c.missing)) console.log(`${c.name}: SKIPPED (${c.missing})`);
  const usable = running.filter((c) => !c.missing);
  const body = bodyChunks();
  console.log(`${(body.length / MB).toFixed(0)} MB body in ${body.count} chunks of 64 KiB, ${ROUNDS} rounds, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const c of usable) await parseOnce(c, body); // warm-up, not counted
  const samples = new Map<string, Sample[]>(usable.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const line: string[] = [];
    for (let i = 0; i < usable.length; i++) {
      const c = usable[(round + i) % usable.length];
      const sample = await parseOnce(c, body);
      samples.get(c.name)!.push(sample);
      line.push(`${c.name} ${sample.mainCpu ?? '?'} ms main / ${sample.processCpu.toFixed(0)} ms process / ${sample.wall.toFixed(0)} ms wall`);
    }
    console.log(`round ${round + 1}: ${line.join('; ')}`);
  }
  console.log(`medians (load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}):`);
  for (const c of usable) {
    const s = samples.get(c.name)!;
    const main = s.every((x) => x.mainCpu !== null) ? `${median(s.map((x) => x.mainCpu!)).toFixed(0)} ms` : 'n/a';
    console.log(
      `  ${c.name.padEnd(28)} main thread ${main} (${s.map((x) => x.mainCpu).join(', ')}), process ${median(s.map((x) => x.processCpu)).toFixed(0)} ms, wall ${median(s.map((x) => x.wall)).toFixed(0)} ms`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
