/**
 * bench/ingest: small APK uploads through POST /api/v1/builds, BENCH_IN_FLIGHT (8) at a time,
 * BENCH_UPLOADS (300) per run, against a baseline measured in the same run
 * (bench/baselines/ingest-server.ts: node:http + busboy + the relay's own metadata reader +
 * better-sqlite3 on a copy of the relay's database). BENCH_ROUNDS (3) runs each, alternating;
 * medians printed, with each server's CPU time per upload and the load average (the machine is shared).
 * BENCH_WARMUP (100) uploads to each side first, unmeasured. BENCH_PROFILE=<dir> writes a CPU profile of the relay. BENCH_CHECKOUT=<dir with dist/> runs that
 * build's relay instead of this one (an A/B against an older commit: alternate runs, compare CPU per upload).
 *
 * BENCH_SEED_BUILDS (30,000; 0 for an empty relay) builds are written by SQL first
 * (bench/support/million-seed.ts, the relay stopped, its triggers running for every row), before the
 * baseline's copy of the database is made: both sides insert into the same table of that many rows,
 * with the same indexes and triggers (issue 27 item 2: "at 30,000 builds"). The seeded rows have no
 * files, so the relay runs with its builds folder's sweep off (SVC_BUILD_FILE_SWEEP=false), as
 * bench/million does.
 *
 * BENCH_DATABASE=postgres: the relay on a fresh PostgreSQL database (BENCH_DATABASE_URL's server,
 * dropped at the end), seeded the same way; there is no hand-written PostgreSQL baseline, so it prints
 * the relay's builds/s and CPU per upload (its own and the database backends'), and no ratio.
 * The raw baseline (the same server with `raw`: no APK read, fixed metadata) runs beside it, as the
 * floor of a server that only stores uploads.
 * Targets (issue 42): builds/s >= 0.7 x the baseline, >= 0.35 x the raw baseline.
 * Run: npm run bench:ingest   (not part of npm test)
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSeedDatabase, seedMillion, sqliteSeedDatabase } from './support/million-seed';
import { backendPids, createBenchDatabase } from './support/postgres-seed';
import { buildRelay, cpuMs, freePort, issuePat, median, ROOT, startRelay, stopChild, startBaseline } from './support/relay';
import { createCostLine } from './support/create-cost';

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 300);
/** Unmeasured uploads per side before the rounds: each server's first round cost 1.3–2× the CPU of the next (JIT, caches). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEED_BUILDS = Number(process.env.BENCH_SEED_BUILDS ?? 30_000);
const POSTGRES = process.env.BENCH_DATABASE === 'postgres';
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

interface Run {
  perSecond: number;
  cpuPerUpload: number;
  /** The database backends' CPU per upload (PostgreSQL), ms. */
  databaseCpuPerUpload: number;
  failures: number;
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

async function run(port: number, pid: number, pat: string, databasePids: () => Promise<number[]> = async () => [], uploads = UPLOADS): Promise<Run> {
  const parts = FIXTURES.map(multipartBody);
  let next = 0;
  let failures = 0;
  const databaseBefore = new Map((await databasePids()).map((backend) => [backend, cpuMs(backend) || 0]));
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < uploads) {
        const status = await upload(port, pat, parts[next++ % parts.length]);
        if (status !== 201) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuPerUpload = (cpuMs(pid) - cpuBefore) / uploads;
  // A backend the pool opened during the run counts whole; one that came and went is missed (the pool keeps its connections).
  const backends = await databasePids();
  const databaseCpu = backends.reduce((n, backend) => n + (cpuMs(backend) || 0) - (databaseBefore.get(backend) ?? 0), 0);
  return { perSecond: uploads / seconds, cpuPerUpload, databaseCpuPerUpload: databaseCpu / uploads, failures };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
  console.log(createCostLine(work));
  const dataDir = join(work, 'data');
  const baselineDir = join(work, 'baseline');
  const rawDir = join(work, 'raw');
  const children: ChildProcess[] = [];
  let database: Awaited<ReturnType<typeof createBenchDatabase>> | undefined;
  try {
    buildRelay();
    const env: Record<string, string> = {};
    // The seeded rows have no files: the builds folder's sweep would delete them (million-seed.ts).
    if (SEED_BUILDS) env.SVC_BUILD_FILE_SWEEP = 'false';
    if (POSTGRES) {
      database = await createBenchDatabase();
      env.SVC_DATABASE_URL = database.url;
    }
    let relay = await startRelay(dataDir, env);
    const pat = await issuePat(relay.base);
    await relay.stop();
    if (SEED_BUILDS) await seed(dataDir, database?.url);
    if (!POSTGRES) {
      mkdirSync(baselineDir, { recursive: true });
      copyFileSync(join(dataDir, 'svc.sqlite'), join(baselineDir, 'svc.sqlite'));
      mkdirSync(rawDir, { recursive: true });
      copyFileSync(join(dataDir, 'svc.sqlite'), join(rawDir, 'svc.sqlite'));
    }
    const profile = process.env.BENCH_PROFILE;
    relay = await startRelay(dataDir, env, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [], process.env.BENCH_CHECKOUT ?? ROOT);
    children.push(relay.child);
    const backends = database ? () => backendPids(database!.name) : undefined;
    if (POSTGRES) return await relayAlone(relay.port, relay.child.pid!, pat, backends!);
    const baselinePort = await freePort();
    const baseline = await startBaseline('ingest-server.ts', [join(baselineDir, 'svc.sqlite'), baselineDir], baselinePort);
    children.push(baseline);
    baseline.stdout!.resume();
    const rawPort = await freePort();
    const raw = await startBaseline('ingest-server.ts', [join(rawDir, 'svc.sqlite'), rawDir, 'raw'], rawPort);
    children.push(raw);
    raw.stdout!.resume();

    if (WARMUP) {
      await run(relay.port, relay.child.pid!, pat, undefined, WARMUP);
      await run(baselinePort, baseline.pid!, pat, undefined, WARMUP);
      await run(rawPort, raw.pid!, pat, undefined, WARMUP);
    }
    console.log(`load average before the rounds ${load()}`);
    const relayRuns: Run[] = [];
    const baselineRuns: Run[] = [];
    const rawRuns: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      relayRuns.push(await run(relay.port, relay.child.pid!, pat));
      baselineRuns.push(await run(baselinePort, baseline.pid!, pat));
      rawRuns.push(await run(rawPort, raw.pid!, pat));
      const [r, b, w] = [relayRuns[round], baselineRuns[round], rawRuns[round]];
      console.log(
        `  round ${round + 1}: relay ${r.perSecond.toFixed(0)}/s ${r.cpuPerUpload.toFixed(2)} ms CPU, baseline ${b.perSecond.toFixed(0)}/s ` +
          `${b.cpuPerUpload.toFixed(2)} ms CPU, raw ${w.perSecond.toFixed(0)}/s ${w.cpuPerUpload.toFixed(2)} ms CPU (load ${load()})`,
      );
    }
    const r = median(relayRuns.map((x) => x.perSecond));
    const b = median(baselineRuns.map((x) => x.perSecond));
    const rc = median(relayRuns.map((x) => x.cpuPerUpload));
    const bc = median(baselineRuns.map((x) => x.cpuPerUpload));
    const w = median(rawRuns.map((x) => x.perSecond));
    const wc = median(rawRuns.map((x) => x.cpuPerUpload));
    const failures = [...relayRuns, ...baselineRuns, ...rawRuns].reduce((n, x) => n + x.failures, 0);
    console.log(`small APK uploads at ${SEED_BUILDS.toLocaleString('en')} seeded builds, ${IN_FLIGHT} in flight, ${UPLOADS} per run, median of ${ROUNDS}`);
    console.log(`relay:    ${r.toFixed(0)} builds/s, ${rc.toFixed(2)} ms CPU per upload`);
    console.log(`baseline: ${b.toFixed(0)} builds/s, ${bc.toFixed(2)} ms CPU per upload`);
    console.log(`raw:      ${w.toFixed(0)} builds/s, ${wc.toFixed(2)} ms CPU per upload`);
    console.log(
      `ratio ${(r / b).toFixed(2)} (target >= 0.7) ${r / b >= 0.7 ? 'OK' : 'MISS'}; cpu ratio ${(bc / rc).toFixed(2)}` +
        (failures ? `; ${failures} upload(s) not answered 201` : ''),
    );
    console.log(`÷ raw baseline: ratio ${(r / w).toFixed(2)} (target >= 0.35) ${r / w >= 0.35 ? 'OK' : 'MISS'}; cpu ratio ${(wc / rc).toFixed(2)}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** BENCH_SEED_BUILDS rows by SQL into the stopped relay's database (SQLite file or PostgreSQL). */
async function seed(dataDir: string, url: string | undefined): Promise<void> {
  const db = url ? await postgresSeedDatabase(url) : sqliteSeedDatabase(join(dataDir, 'svc.sqlite'));
  const result = await seedMillion(db, SEED_BUILDS, () => undefined);
  await db.close();
  console.log(`seeded ${SEED_BUILDS.toLocaleString('en')} builds by SQL in ${result.seconds.toFixed(1)} s (${url ? 'PostgreSQL' : 'SQLite'})`);
}

/** PostgreSQL: no hand-written baseline to compare with; the relay's own figures. */
async function relayAlone(port: number, pid: number, pat: string, backends: () => Promise<number[]>): Promise<void> {
  if (WARMUP) await run(port, pid, pat, backends, WARMUP);
  console.log(`load average before the rounds ${load()}`);
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    runs.push(await run(port, pid, pat, backends));
    const x = runs[round];
    console.log(`  round ${round + 1}: relay ${x.perSecond.toFixed(0)}/s, ${x.cpuPerUpload.toFixed(2)} ms CPU + database ${x.databaseCpuPerUpload.toFixed(2)} ms (load ${load()})`);
  }
  const failures = runs.reduce((n, x) => n + x.failures, 0);
  console.log(`small APK uploads on PostgreSQL at ${SEED_BUILDS.toLocaleString('en')} seeded builds, ${IN_FLIGHT} in flight, ${UPLOADS} per run, median of ${ROUNDS}`);
  console.log(
    `relay: ${median(runs.map((x) => x.perSecond)).toFixed(0)} builds/s, ${median(runs.map((x) => x.cpuPerUpload)).toFixed(2)} ms CPU per upload ` +
      `+ database backends ${median(runs.map((x) => x.databaseCpuPerUpload)).toFixed(2)} ms; no PostgreSQL baseline, no ratio` +
      (failures ? `; ${failures} upload(s) not answered 201` : ''),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
