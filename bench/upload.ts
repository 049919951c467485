/**
 * bench/upload: uploads a large build (500 MB by default, BENCH_MB to change) through the real
 * POST /builds endpoint of a relay running as a child process, and prints
 *   - the upload throughput in MB/s,
 *   - the ratio of the upload time to a plain streamed copy of the same bytes on the same disk,
 *     measured in the same run,
 *   - the relay's peak RSS during the upload (VmHWM on Linux, sampled `ps` elsewhere).
 * Targets: ratio within 1.5x of the copy; peak RSS under 200 MB whatever the size.
 * Run: npm run bench:upload   (not part of npm test)
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { buildRelay, issuePat, peakRssKb, ROOT, startRelay } from './support/relay';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_MB ?? 500);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const dataDir = join(work, 'data');
  const buildPath = join(work, 'big.apk');
  let relay: ChildProcess | null = null;
  try {
    process.stdout.write(`Writing a ${SIZE_MB} MB APK… `);
    await writeBigApk(buildPath, SIZE_MB * MB);
    const bytes = statSync(buildPath).size;
    process.stdout.write('done\n');

    // The relay as `npm start` runs it: compiled once into dist/, then plain node (no TypeScript in memory).
    buildRelay();
    const running = await startRelay(dataDir, { SVC_LOG_LEVEL: 'warn', SVC_MAX_BUILD_BYTES: String(bytes + MB) });
    relay = running.child;
    const base = running.base;
    const pat = await issuePat(base);

    // Baseline: the same bytes streamed to a file on the same disk as the relay's data dir.
    const copyStarted = process.hrtime.bigint();
    await pipeline(createReadStream(buildPath, { highWaterMark: MB }), createWriteStream(join(dataDir, 'copy.bin')));
    const copySeconds = Number(process.hrtime.bigint() - copyStarted) / 1e9;
    rmSync(join(dataDir, 'copy.bin'));

    const rssBefore = peakRssKb(relay.pid!);
    const sampler = new RssSampler(relay.pid!);
    const started = process.hrtime.bigint();
    const status = await uploadFile(`${base}/builds`, pat, buildPath, bytes);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    sampler.stop();
    if (status.code !== 201) throw new Error(`upload answered ${status.code}: ${status.body}`);
    const peakKb = Math.max(peakRssKb(relay.pid!) ?? 0, sampler.maxKb);

    const ratio = seconds / copySeconds;
    console.log(`upload:      ${(bytes / MB).toFixed(0)} MB in ${seconds.toFixed(2)} s = ${(bytes / MB / seconds).toFixed(1)} MB/s`);
    console.log(`plain copy:  ${(bytes / MB / copySeconds).toFixed(1)} MB/s (${copySeconds.toFixed(2)} s)`);
    console.log(`ratio:       ${ratio.toFixed(2)}x the copy time (target <= 1.5x) ${ratio <= 1.5 ? 'OK' : 'OVER'}`);
    console.log(
      `relay RSS:   peak ${(peakKb / 1024).toFixed(0)} MB (before upload ${((rssBefore ?? 0) / 1024).toFixed(0)} MB; target < 200 MB) ${peakKb / 1024 < 200 ? 'OK' : 'OVER'}`,
    );
  } finally {
    relay?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

/** A real APK (the aapt fixture's manifest, stored) followed by one big stored entry of pseudo-random bytes. */
async function writeBigApk(path: string, size: number): Promise<void> {
  const manifest = await readEntry(join(ROOT, 'test', 'fixtures', 'builds', 'literal-label.apk'), 'AndroidManifest.xml');
  const out = await open(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  const addEntry = async (name: string, length: number, write: () => Promise<void>) => {
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(0, 14); // CRC is not checked when reading metadata; the relay never extracts
    local.writeUInt32LE(length, 18);
    local.writeUInt32LE(length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    await out.write(Buffer.concat([local, nameBytes]));
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt32LE(length, 20);
    header.writeUInt32LE(length, 24);
    header.writeUInt16LE(nameBytes.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, nameBytes);
    offset += 30 + nameBytes.length + length;
    await write();
  };
  await addEntry('AndroidManifest.xml', manifest.length, async () => void (await out.write(manifest)));
  const padding = Math.max(0, size - offset - 200);
  await addEntry('assets/payload.bin', padding, async () => {
    const chunk = Buffer.alloc(4 * MB);
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
    for (let left = padding; left > 0; left -= chunk.length) await out.write(chunk.subarray(0, Math.min(left, chunk.length)));
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(2, 8);
  end.writeUInt16LE(2, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  await out.write(Buffer.concat([cd, end]));
  await out.close();
}

async function readEntry(zipPath: string, name: string): Promise<Buffer> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(zipPath, { lazyEntries: true });
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName !== name) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream!.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
      });
    });
    zip.on('end', () => reject(new Error(`${name} not found`)));
    zip.readEntry();
  });
}

function uploadFile(url: string, pat: string, path: string, size: number): Promise<{ code: number; body: string }> {
  const boundary = `----svcbench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.apk"\r\n` +
      `Content-Type: application/vnd.android.package-archive\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${pat}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c)).on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path, { highWaterMark: MB });
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
    file.on('error', reject);
  });
}

/** Samples the child's current RSS every 100 ms (for systems without /proc). */
class RssSampler {
  maxKb = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(pid: number) {
    this.timer = setInterval(() => {
      try {
        const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (match) this.maxKb = Math.max(this.maxKb, Number(match[1]));
      } catch {
        const ps = spawn('ps', ['-o', 'rss=', '-p', String(pid)]);
        ps.stdout.on('data', (d) => (this.maxKb = Math.max(this.maxKb, Number(String(d).trim()) || 0)));
      }
    }, 100);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
