/**
 * bench/sweep (`npm run bench:sweep`): the builds folder's orphan sweep at BENCH_SWEEP_BUILDS
 * (200,000) builds, each with its file (empty), issue 27. SQLite only.
 *
 * One data folder is seeded once (the relay creates its tables; the builds by SQL,
 * bench/support/million-seed.ts; then an empty file per row). Then two builds of the relay are
 * started on it in turn, BENCH_SWEEP_ROUNDS (1) times each, alternating: A = BENCH_SWEEP_BASE's
 * dist/ (default /work/main, built: the sweep before issue 27's fix) and B = this checkout's. Before
 * each start three old orphan files are planted and three rows' files removed, so each sweep has
 * work and logs its line; after each stop the bench checks that they were handled. Printed per run:
 *   - start: spawn to the first 200 from GET /api/v1/health;
 *   - start-up sweep done: spawn to its log line (A sweeps before it listens, B after);
 *   - GET /health, one connection back to back, from the first answer to 1 s after the start-up
 *     sweep's line: answers, p50 / p99 / max;
 *   - with BENCH_SWEEP_MINUTE=1 (default): the minute's sweep (a fresh old orphan planted), GET /health
 *     the same way from the minute's start to 1 s after its line, and its duration from the minute;
 *   - the relay's peak RSS (VmHWM) and CPU time over the run.
 * The load average is printed with each run (the machine is shared). Data go under the system's temp
 * folder and are removed at the end.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepare, seedMillion, sqliteSeedDatabase } from './support/million-seed';
import { buildRelay, cpuMs, freePort, peakRssKb, ROOT, stopChild } from './support/relay';

const BUILDS = Number(process.env.BENCH_SWEEP_BUILDS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_SWEEP_ROUNDS ?? 1);
const BASE = process.env.BENCH_SWEEP_BASE ?? '/work/main';
const MINUTE = (process.env.BENCH_SWEEP_MINUTE ?? '1') !== '0';
const SWEEP_LINE = 'Orphan sweep removed';
const HOUR_MS = 3_600_000;

const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

interface Probe {
  latencies: number[];
  failures: number;
}

interface Run {
  label: string;
  startMs: number;
  startupSweepMs: number;
  startup: Probe;
  minute?: { sweepMs: number; probe: Probe };
  peakMb: number;
  cpuMs: number;
  load: string;
}

/** The relay's stdout, watched for the sweep's line (each one seen, with its time from spawn). */
function watchLines(child: ChildProcess, started: number): { sweepLines: number[] } {
  const seen = { sweepLines: [] as number[] };
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.includes(SWEEP_LINE)) seen.sweepLines.push(performance.now() - started);
  });
  return seen;
}

/** GET /health back to back on one keep-alive connection until `until()` says stop. */
async function probe(port: number, until: () => boolean): Promise<Probe> {
  const result: Probe = { latencies: [], failures: 0 };
  while (!until()) {
    const t = performance.now();
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (r) => r.arrayBuffer().then(() => r.status === 200),
      () => false,
    );
    if (ok) result.latencies.push(performance.now() - t);
    else result.failures++;
  }
  return result;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runOnce(label: string, checkout: string, dataDir: string, round: string): Promise<Run> {
  const dbPath = join(dataDir, 'svc.sqlite');
  const planted = await plantRun(dataDir, dbPath, round);
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(checkout, 'dist', 'main.js')], {
    cwd: checkout,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_BCRYPT_COST: '4' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seen = watchLines(child, started);
  try {
    let healthy = false;
    while (!healthy) {
      if (child.exitCode !== null) throw new Error(`${label}: relay exited with ${child.exitCode}`);
      healthy = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!healthy) await sleep(5);
    }
    const startMs = performance.now() - started;
    let doneAt = Infinity;
    const startup = await probe(port, () => {
      if (seen.sweepLines.length && doneAt === Infinity) doneAt = performance.now();
      return performance.now() > doneAt + 1000 || performance.now() - started > 600_000;
    });
    if (!seen.sweepLines.length) throw new Error(`${label}: no start-up sweep line in 10 minutes`);
    const startupSweepMs = seen.sweepLines[0];
    let minute: Run['minute'];
    if (MINUTE) {
      const orphan = join(dataDir, 'builds', `orphan-${round}-minute.apk`);
      writeFileSync(orphan, '');
      const past = new Date(Date.now() - 2 * HOUR_MS);
      utimesSync(orphan, past, past);
      // Wait for the next minute's start (the cron's tick), then probe until its sweep's line + 1 s.
      const nextMinute = 60_000 - (Date.now() % 60_000);
      await sleep(nextMinute);
      const tick = performance.now();
      let minuteDone = Infinity;
      const minuteProbe = await probe(port, () => {
        if (seen.sweepLines.length > 1 && minuteDone === Infinity) minuteDone = performance.now();
        return performance.now() > minuteDone + 1000 || performance.now() - tick > 300_000;
      });
      if (seen.sweepLines.length < 2) throw new Error(`${label}: no minute sweep line in 5 minutes`);
      minute = { sweepMs: seen.sweepLines[1] - (tick - started), probe: minuteProbe };
    }
    const run: Run = {
      label,
      startMs,
      startupSweepMs,
      startup,
      minute,
      peakMb: (peakRssKb(child.pid!) ?? NaN) / 1024,
      cpuMs: cpuMs(child.pid!),
      load: load(),
    };
    await stopChild(child);
    await checkPlanted(label, dbPath, planted);
    return run;
  } finally {
    await stopChild(child);
  }
}

/** Three old orphans, and three rows whose file is removed: the sweep's work in each run. */
async function plantRun(dataDir: string, dbPath: string, round: string): Promise<{ orphans: string[]; missingRows: number[] }> {
  const builds = join(dataDir, 'builds');
  const past = new Date(Date.now() - 2 * HOUR_MS);
  const orphans = [0, 1, 2].map((i) => join(builds, `orphan-${round}-${i}.apk`));
  for (const path of orphans) {
    writeFileSync(path, '');
    utimesSync(path, past, past);
  }
  const db = sqliteSeedDatabase(dbPath);
  try {
    const victims = await db.all<{ id: number; file_name: string }>('SELECT id, file_name FROM builds ORDER BY (id * 7919) % 1000003 LIMIT 3');
    for (const row of victims) unlinkSync(join(builds, row.file_name));
    return { orphans, missingRows: victims.map((v) => v.id) };
  } finally {
    db.close();
  }
}

/** The run's planted orphans are gone and its rows without a file deleted, whichever build swept them. */
async function checkPlanted(label: string, dbPath: string, planted: { orphans: string[]; missingRows: number[] }): Promise<void> {
  const db = sqliteSeedDatabase(dbPath);
  try {
    const [{ n }] = await db.all<{ n: number }>(`SELECT COUNT(*) AS n FROM builds WHERE id IN (${planted.missingRows.join(',')})`);
    const orphansLeft = planted.orphans.filter((path) => existsSync(path)).length;
    console.log(`  ${n || orphansLeft ? 'WRONG' : 'checked'}: ${n} row(s) without a file left, ${orphansLeft} old orphan(s) left`);
  } finally {
    db.close();
  }
}

const pct = (values: number[], p: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

function describeProbe(probe: Probe): string {
  const l = probe.latencies;
  return `${l.length} answers, p50 ${pct(l, 50).toFixed(1)} / p99 ${pct(l, 99).toFixed(1)} / max ${Math.max(...l).toFixed(0)} ms${probe.failures ? `, ${probe.failures} failed` : ''}`;
}

async function main(): Promise<void> {
  buildRelay();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-sweep-'));
  const dataDir = join(work, 'data');
  try {
    await prepare(dataDir, {});
    const db = sqliteSeedDatabase(join(dataDir, 'svc.sqlite'));
    console.log(`seeding ${BUILDS.toLocaleString('en')} builds by SQL (load average ${load()})`);
    const seeded = await seedMillion(db, BUILDS, () => undefined);
    const names = await db.all<{ file_name: string }>('SELECT file_name FROM builds');
    db.close();
    const filesStarted = performance.now();
    for (const { file_name } of names) writeFileSync(join(dataDir, 'builds', file_name), '');
    console.log(
      `seeded in ${seeded.seconds.toFixed(0)} s, ${names.length.toLocaleString('en')} empty files in ${((performance.now() - filesStarted) / 1000).toFixed(0)} s`,
    );
    const runs: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, checkout] of [
        ['A (base)', BASE],
        ['B (this)', ROOT],
      ] as const) {
        console.log(`${label} round ${round + 1}: starting (load average ${load()})`);
        const run = await runOnce(label, checkout, dataDir, `${round}${label[0]}`);
        runs.push(run);
        console.log(`${label} round ${round + 1}: start ${(run.startMs / 1000).toFixed(2)} s, start-up sweep done ${(run.startupSweepMs / 1000).toFixed(2)} s from spawn`);
        console.log(`  GET /health from start to the start-up sweep's end + 1 s: ${describeProbe(run.startup)}`);
        if (run.minute) console.log(`  the minute's sweep: ${(run.minute.sweepMs / 1000).toFixed(2)} s from the minute; GET /health meanwhile: ${describeProbe(run.minute.probe)}`);
        console.log(`  peak RSS ${run.peakMb.toFixed(0)} MB, CPU ${(run.cpuMs / 1000).toFixed(1)} s (load average ${run.load})`);
      }
    }
    console.log(`\nsummary at ${BUILDS.toLocaleString('en')} builds (medians of ${ROUNDS} round(s)), load average now ${load()}`);
    for (const label of ['A (base)', 'B (this)']) {
      const mine = runs.filter((r) => r.label === label);
      const med = (f: (r: Run) => number) => pct(mine.map(f), 50);
      console.log(
        `${label}: start ${(med((r) => r.startMs) / 1000).toFixed(2)} s; start-up sweep done ${(med((r) => r.startupSweepMs) / 1000).toFixed(2)} s; ` +
          `/health p99 ${med((r) => pct(r.startup.latencies, 99)).toFixed(1)} ms, max ${med((r) => Math.max(...r.startup.latencies)).toFixed(0)} ms` +
          (MINUTE ? `; minute sweep ${(med((r) => r.minute!.sweepMs) / 1000).toFixed(2)} s, /health p99 ${med((r) => pct(r.minute!.probe.latencies, 99)).toFixed(1)} ms, max ${med((r) => Math.max(...r.minute!.probe.latencies)).toFixed(0)} ms` : '') +
          `; peak RSS ${med((r) => r.peakMb).toFixed(0)} MB`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
