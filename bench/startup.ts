/**
 * bench/startup: cold start and idle memory of the relay as `npm start` runs it (plain node on dist/).
 *   - time from spawning the process to the first 200 from GET /api/v1/health, on an empty data
 *     folder (migrations run) and then on the same folder again (the usual restart), BENCH_STARTS
 *     (default 5) restarts, median;
 *   - the CPU time (user + system) the relay spent until then: on a machine shared with other work
 *     the wall time mostly measures the wait for a core (at load average 15 on 2 cores a start that
 *     needs 1.3 s of CPU takes 5 s), the CPU time barely moves;
 *   - resident memory after the relay has sat idle for BENCH_IDLE_SECONDS (default 5) s, and the
 *     peak it reached on the way (VmHWM when ready: what start-up alone asks of a container).
 * Targets: ready in < 1.5 s; idle RSS < 120 MB.
 * BENCH_CHECKOUT=<dir with dist/> starts that build too, its restarts taking turns with this one's
 * (an A/B), and prints its figures and this one's over it.
 * Run: npm run bench:startup   (not part of npm test)
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRelay, cpuMs, freePort, median, peakRssKb, ROOT, rssKb, stopChild } from './support/relay';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);

const CHECKOUT = process.env.BENCH_CHECKOUT;

type Start = { child: ChildProcess; ms: number; cpuMs: number; peakKb: number };

async function startUntilHealthy(dataDir: string, root = ROOT): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relay exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, ms: performance.now() - started, cpuMs: cpuMs(child.pid!), peakKb: peakRssKb(child.pid!) ?? NaN };
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A build's restarts: wall time, CPU time, peak RSS when ready, idle RSS after the last. */
type Side = { name: string; root: string; dataDir: string; times: number[]; cpuTimes: number[]; peaks: number[]; idleKb: number };

async function restart(side: Side, last: boolean): Promise<void> {
  const run = await startUntilHealthy(side.dataDir, side.root);
  side.times.push(run.ms);
  side.cpuTimes.push(run.cpuMs);
  side.peaks.push(run.peakKb / 1024);
  if (last) {
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    side.idleKb = rssKb(run.child.pid!) ?? NaN;
  }
  await stopChild(run.child);
}

function report(side: Side): { cpu: number; peak: number } {
  const list = (values: number[]) => values.map((t) => t.toFixed(0)).join(', ');
  const ready = median(side.times);
  const cpu = median(side.cpuTimes);
  const peak = median(side.peaks);
  const tag = side.name ? `${side.name}: ` : '';
  console.log(`${tag}restart: median ${ready.toFixed(0)} ms of ${STARTS} (${list(side.times)}) (target < 1500 ms) ${ready < 1500 ? 'OK' : 'MISS'}`);
  console.log(
    `${tag}restart CPU time to ready: median ${cpu.toFixed(0)} ms (${list(side.cpuTimes)}) (about the wall time on an idle machine; target < 1500 ms) ${cpu < 1500 ? 'OK' : 'MISS'}`,
  );
  console.log(`${tag}peak RSS when ready: median ${peak.toFixed(0)} MB (${list(side.peaks)})`);
  console.log(`${tag}idle RSS after ${IDLE_SECONDS} s: ${(side.idleKb / 1024).toFixed(0)} MB (target < 120 MB) ${side.idleKb / 1024 < 120 ? 'OK' : 'MISS'}`);
  return { cpu, peak };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
  const side = (name: string, root: string): Side => ({ name, root, dataDir: join(work, name || 'data'), times: [], cpuTimes: [], peaks: [], idleKb: NaN });
  const sides = [side('', ROOT), ...(CHECKOUT ? [side('checkout', CHECKOUT)] : [])];
  try {
    buildRelay();
    for (const s of sides) {
      const first = await startUntilHealthy(s.dataDir, s.root);
      await stopChild(first.child);
      if (s.root === ROOT) {
        console.log(`first start (empty folder, migrations): ${first.ms.toFixed(0)} ms to a healthy GET /api/v1/health, ${first.cpuMs.toFixed(0)} ms of CPU`);
      }
    }
    for (let i = 0; i < STARTS; i++) for (const s of sides) await restart(s, i === STARTS - 1);
    console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 cores: above 2, the wall times below include waiting for a core)`);
    const [own, other] = sides.map(report);
    if (other) console.log(`this build ÷ ${CHECKOUT}: CPU to ready ${(own.cpu / other.cpu).toFixed(2)}, peak RSS when ready ${(own.peak / other.peak).toFixed(2)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
