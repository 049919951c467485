/**
 * BENCH_PERF=<dir> (bench:soak): Linux `perf` samples a server's main thread by CPU time, its JS frames named
 * (node --perf-basic-prof writes /tmp/perf-<pid>.map). A V8 CPU profile samples wall time: on a loaded
 * machine a thread preempted in a system call is charged to that call, so it overstates socket writes and
 * file calls; perf charges only time on a core. bench/profile-layers.ts reads what `stop` writes.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Samples a second: off any timer's period, few enough that perf's own work stays small. */
export const PERF_HZ = 499;
export const PERF_NODE_ARGS = ['--perf-basic-prof'];

export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version']).status === 0;
}

/**
 * Starts sampling `pid` (every thread, with call graphs); `stop` ends it and writes `<dir>/<name>.perf.txt` (the main
 * thread) and `<dir>/<name>.threads.txt`: the main thread's share of the samples and the other threads' by the task
 * they ran (V8's compiler and collector jobs, libuv's workers), where a server's CPU beyond its event loop goes.
 */
export function recordPerf(pid: number, dir: string, name: string): { stop(): Promise<string> } {
  mkdirSync(dir, { recursive: true });
  const data = join(dir, `${name}.perf.data`);
  const recorder = spawn('perf', ['record', '-F', String(PERF_HZ), '-g', '-p', String(pid), '-o', data], { stdio: ['ignore', 'ignore', 'pipe'] });
  let complaint = '';
  recorder.stderr.on('data', (chunk: Buffer) => (complaint = (complaint + chunk.toString()).slice(-2000)));
  // Listened for from the start: a perf that ends early (it could not record) must not leave stop() waiting for ever.
  const ended = new Promise<number | null>((resolve) => recorder.once('exit', resolve));
  return {
    async stop() {
      if (recorder.exitCode === null && recorder.signalCode === null) recorder.kill('SIGINT');
      const code = await ended;
      if (code !== 0 && code !== null && !complaint.includes('Captured and wrote')) throw new Error(`perf record ${name} ended early (exit ${code}): ${complaint.trim()}`);
      latestNamesOnly(`/tmp/perf-${pid}.map`);
      const out = join(dir, `${name}.perf.txt`);
      const fd = openSync(out, 'w');
      try {
        execFileSync('perf', ['script', '-i', data, '--tid', String(pid), '-F', 'tid,ip,sym,dso'], { stdio: ['ignore', fd, 'ignore'], maxBuffer: 1 << 30 });
      } finally {
        closeSync(fd);
      }
      writeFileSync(join(dir, `${name}.threads.txt`), threadSummary(data, pid));
      rmSync(data, { force: true });
      return out;
    },
  };
}

/**
 * node --perf-basic-prof appends a line per code object and never says when one is freed, so an address
 * reused by later code carries both names and perf picks either: samples of the relay's handlers were
 * named after iterare, whose optimised code Nest ran once at start-up. Each range keeps the name written
 * last, the code that holds it once the warm-up is over (when the recording starts).
 */
export function latestNamesOnly(mapFile: string): void {
  const lines = readFileSync(mapFile, 'utf8').split('\n').filter(Boolean);
  const kept: { start: number; end: number; line: string }[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const [startHex, sizeHex] = lines[i].split(' ', 2);
    const start = parseInt(startHex, 16);
    const end = start + parseInt(sizeHex, 16);
    // kept is sorted by start: the first range ending after this start is the only one that may overlap it.
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid].end <= start) lo = mid + 1;
      else hi = mid;
    }
    if (lo < kept.length && kept[lo].start < end) continue;
    kept.splice(lo, 0, { start, end, line: lines[i] });
  }
  writeFileSync(mapFile, kept.map((k) => k.line).join('\n') + '\n');
}

/** Frames between a thread's start and the work it runs (the thread loop, the job's own wrapper). */
const THREAD_PLUMBING = /^(?:start_thread|clone3?|__clone|\[unknown\]|node::.*(?:PlatformWorkerThread|WorkerThread)|uv_thread|.*worker$|v8::platform::(?:DefaultJob|DefaultWorker|TaskQueue|DelayedTaskQueue).*|v8::base::Thread::.*|(?:v8::base::)?ThreadEntry.*)$/;

/**
 * The samples of the main thread and of the others by what they ran: a worker's task is the frame just above
 * its thread's entry (V8's PlatformWorkerThread: concurrent marking, scavenging, compiling; libuv's worker:
 * file calls, bcrypt, zlib), named from `perf script`'s call graphs.
 */
function threadSummary(data: string, mainPid: number): string {
  const script = execFileSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const byTask = new Map<string, number>();
  let total = 0;
  let main = 0;
  for (const block of script.split('\n\n')) {
    const [head, ...frames] = block.trim().split('\n');
    const tid = head ? Number(head.trim()) : NaN;
    if (!Number.isInteger(tid)) continue;
    total++;
    if (tid === mainPid) {
      main++;
      continue;
    }
    const names = frames.map((frame) => frame.trim().replace(/^[0-9a-f]+\s+/, '').replace(/<.*>/, '<…>'));
    const task = [...names].reverse().find((name) => !THREAD_PLUMBING.test(name)) ?? '?';
    byTask.set(task, (byTask.get(task) ?? 0) + 1);
  }
  const share = (n: number) => `${((n / Math.max(1, total)) * 100).toFixed(1).padStart(5)} %`;
  return [
    `samples: ${total}`,
    `${share(main)}  main thread`,
    `${share(total - main)}  other threads, by task:`,
    ...[...byTask].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([name, n]) => `${share(n)}    ${name}`),
  ].join('\n') + '\n';
}
