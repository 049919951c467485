/**
 * bench/ingest: small APK uploads through POST /api/v1/builds, BENCH_IN_FLIGHT (8) at a time,
 * BENCH_UPLOADS (300) per run, against a baseline measured in the same run
 * (bench/baselines/ingest-server.ts: node:http + busboy + the relay's own metadata reader +
 * better-sqlite3 on a copy of the relay's database). BENCH_ROUNDS (3) runs each; medians printed,
 * with each server's CPU time per upload. BENCH_PROFILE=<dir> writes a CPU profile of the relay.
 * Target: builds/s >= 0.5 x the baseline.
 * Run: npm run bench:ingest   (not part of npm test)
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRelay, cpuMs, freePort, issuePat, median, ROOT, startRelay, stopChild, startBaseline } from './support/relay';

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 300);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FIXTURES = ['literal-label.apk', 'string-label.apk'];
let reported = 0;

function multipartBody(name: string): { body: Buffer; boundary: string } {
  const boundary = `----svcbench${name.length}x`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/vnd.android.package-archive\r\n\r\n',
    ),
    readFileSync(join(ROOT, 'test', 'fixtures', 'builds', name)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, boundary };
}

function upload(port: number, pat: string, part: { body: Buffer; boundary: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/api/v1/builds',
      method: 'POST',
      headers: {
        Authorization: `Bearer ${pat}`,
        'Content-Type': `multipart/form-data; boundary=${part.boundary}`,
        'Content-Length': String(part.body.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        if (res.statusCode !== 201 && !reported++) console.log(`answer ${res.statusCode} from :${port}: ${text.slice(0, 200)}`);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', reject);
    req.end(part.body);
  });
}

async function run(port: number, pid: number, pat: string): Promise<{ perSecond: number; cpuPerUpload: number; failures: number }> {
  const parts = FIXTURES.map(multipartBody);
  let next = 0;
  let failures = 0;
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < UPLOADS) {
        const status = await upload(port, pat, parts[next++ % parts.length]);
        if (status !== 201) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: UPLOADS / seconds, cpuPerUpload: (cpuMs(pid) - cpuBefore) / UPLOADS, failures };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
  const dataDir = join(work, 'data');
  const baselineDir = join(work, 'baseline');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir);
    const pat = await issuePat(relay.base);
    await relay.stop();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(baselineDir, { recursive: true });
    copyFileSync(join(dataDir, 'svc.sqlite'), join(baselineDir, 'svc.sqlite'));
    const profile = process.env.BENCH_PROFILE;
    relay = await startRelay(dataDir, {}, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []);
    children.push(relay.child);
    const baselinePort = await freePort();
    const baseline = await startBaseline('ingest-server.ts', [join(baselineDir, 'svc.sqlite'), baselineDir], baselinePort);
    children.push(baseline);
    baseline.stdout!.resume();

    const relayRuns = [];
    const baselineRuns = [];
    for (let round = 0; round < ROUNDS; round++) {
      relayRuns.push(await run(relay.port, relay.child.pid!, pat));
      baselineRuns.push(await run(baselinePort, baseline.pid!, pat));
    }
    const r = median(relayRuns.map((x) => x.perSecond));
    const b = median(baselineRuns.map((x) => x.perSecond));
    const rc = median(relayRuns.map((x) => x.cpuPerUpload));
    const bc = median(baselineRuns.map((x) => x.cpuPerUpload));
    const failures = [...relayRuns, ...baselineRuns].reduce((n, x) => n + x.failures, 0);
    console.log(`small APK uploads, ${IN_FLIGHT} in flight, ${UPLOADS} per run, median of ${ROUNDS}`);
    console.log(`relay:    ${r.toFixed(0)} builds/s, ${rc.toFixed(2)} ms CPU per upload`);
    console.log(`baseline: ${b.toFixed(0)} builds/s, ${bc.toFixed(2)} ms CPU per upload`);
    console.log(
      `ratio ${(r / b).toFixed(2)} (target >= 0.5) ${r / b >= 0.5 ? 'OK' : 'MISS'}; cpu ratio ${(bc / rc).toFixed(2)}` +
        (failures ? `; ${failures} upload(s) not answered 201` : ''),
    );
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
