/**
 * bench/screenshot-ab: two builds of the relay side by side, for measuring a change to the screenshot
 * path on a machine shared with other work: relay A (BENCH_A, a checkout whose dist/ is built) and
 * relay B (BENCH_B, default this checkout), each with its own set of the bench's agents, loaded in
 * turn with 8 clients (A, B, A, B, …: BENCH_ROUNDS pairs × BENCH_SECONDS) and each run's screenshots/s,
 * p50 and the relay's CPU per screenshot printed, then the medians. BENCH_NODE_ARGS (space-separated)
 * are given to both relays, BENCH_B_NODE_ARGS to B only (to measure a V8 flag). Each run's line splits the
 * CPU per screenshot by thread (main, of it in the kernel, vs the rest, which Node 20 names all "node": mostly V8's GC workers).
 * With --trace-gc (and --trace-incremental-marking) in BENCH_NODE_ARGS, each line also counts the run's
 * scavenges and mark-compacts and why markings started; BENCH_GC_LOG=<file> keeps those trace lines.
 * Run: BENCH_A=/path/to/other/checkout npx ts-node --transpile-only bench/screenshot-ab.ts
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { freePort, issuePats, LoadResult, median, MB, peakRssKb, ROOT, runLoad, stopChild, waitForListening } from './support/relay';
import { noisePng } from './screenshot-png';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** CPU ms (user + system) so far of each of a process's threads, summed by thread name (main thread: its own name). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
      // The main thread's system time apart: the kernel's socket work (loopback sends, reads).
      if (name === 'main') byName.set('main sys', Number(fields[12]) * 10);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return byName;
}

const split = (flags?: string) => (flags ? flags.split(' ').filter(Boolean) : []);

async function relayFrom(root: string, work: string, nodeArgs: string[]) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, SVC_DATA_DIR: mkdtempSync(join(work, 'data-')), SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_BCRYPT_COST: '4' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitForListening(child);
  // With --trace-gc: the collections of each run, counted from the relay's output, with their reasons.
  const gc = { scavenges: 0, markCompacts: 0, reasons: new Map<string, number>() };
  child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) {
      if (process.env.BENCH_GC_LOG && /IncrementalMarking\] Start|Mark-Compact/.test(line)) appendFileSync(process.env.BENCH_GC_LOG, line + '\n');
      const start = /\[IncrementalMarking\] Start \((.*?)\)/.exec(line);
      if (start) gc.reasons.set(`start: ${start[1]}`, (gc.reasons.get(`start: ${start[1]}`) ?? 0) + 1);
      if (line.includes(': Scavenge ')) gc.scavenges++;
      else if (line.includes(': Mark-Compact ')) {
        gc.markCompacts++;
        const reason = /; (?:\(.*?\) )?(?:[^;]*;)? *([^;]*)$/.exec(line)?.[1]?.trim() ?? '?';
        gc.reasons.set(reason, (gc.reasons.get(reason) ?? 0) + 1);
      }
    }
  });
  return { child, port, base: `http://127.0.0.1:${port}/api/v1`, gc };
}

function startAgents(relayPort: number, token: string, png: Buffer): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'support', 'screenshot-agents.js'), { workerData: { relayPort, token, count: AGENTS, png } });
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  const a = process.env.BENCH_A;
  if (!a) throw new Error('BENCH_A=<checkout with a built dist/> is required');
  const b = process.env.BENCH_B ?? ROOT;
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-shot-ab-'));
  const png = noisePng(MB);
  const sessions = Array.from({ length: AGENTS }, (_, i) => `bench-${i}`);
  const relays = [
    { name: 'A', ...(await relayFrom(a, work, split(process.env.BENCH_NODE_ARGS))) },
    { name: 'B', ...(await relayFrom(b, work, [...split(process.env.BENCH_NODE_ARGS), ...split(process.env.BENCH_B_NODE_ARGS)])) },
  ];
  const workers: Worker[] = [];
  const results: Record<string, LoadResult[]> = { A: [], B: [] };
  try {
    const tokens = [];
    for (const relay of relays) {
      const [agent, view] = await issuePats(relay.base, ['agent', 'view']);
      workers.push(await startAgents(relay.port, agent, png));
      tokens.push(view);
    }
    await new Promise((r) => setTimeout(r, 1000)); // the device lists arrive asynchronously
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, relay] of relays.entries()) {
        const threadsBefore = threadCpu(relay.child.pid!);
        Object.assign(relay.gc, { scavenges: 0, markCompacts: 0, reasons: new Map() });
        const r = await runLoad({
          serverPid: relay.child.pid,
          port: relay.port,
          paths: sessions.map((s) => `/api/v1/sessions/${s}/screenshot`),
          headers: { Authorization: `Bearer ${tokens[i]}` },
          connections: AGENTS,
          seconds: SECONDS,
        });
        if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${relay.name}: ${JSON.stringify(r.statuses)} ${r.errors} errors`);
        results[relay.name].push(r);
        const threads = [...threadCpu(relay.child.pid!)]
          .map(([name, ms]) => [name, (ms - (threadsBefore.get(name) ?? 0)) / Math.max(1, r.completed)] as const)
          .filter(([, ms]) => ms >= 0.01)
          .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
          .join(', ');
        const gc = relay.gc.scavenges
          ? `; ${relay.gc.scavenges} scavenges, ${relay.gc.markCompacts} mark-compacts per ${r.completed} shots (${[...relay.gc.reasons].map(([k, n]) => `${n} ${k}`).join(', ')})`
          : '';
        console.log(`${relay.name}: ${r.rps.toFixed(0)}/s p50 ${r.p50.toFixed(1)} ms, ${r.cpuMsPerRequest.toFixed(2)} ms CPU/shot (${threads}); load ${loadavg()[0].toFixed(1)}${gc}`);
      }
    }
    for (const name of ['A', 'B']) {
      const m = (pick: (r: LoadResult) => number) => median(results[name].map(pick));
      const pid = relays.find((r) => r.name === name)!.child.pid!;
      console.log(
        `median ${name}: ${m((r) => r.rps).toFixed(0)}/s, p50 ${m((r) => r.p50).toFixed(1)} ms, ${m((r) => r.cpuMsPerRequest).toFixed(2)} ms CPU/shot; ` +
          `peak RSS ${((peakRssKb(pid) ?? NaN) / 1024).toFixed(0)} MB`,
      );
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    await Promise.all(relays.map((r) => stopChild(r.child)));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
