/**
 * BENCH_PERF=<dir> (bench:soak): Linux `perf` samples a server's main thread by CPU time, its JS frames named
 * (node --perf-basic-prof writes /tmp/perf-<pid>.map). A V8 CPU profile samples wall time: on a loaded
 * machine a thread preempted in a system call is charged to that call, so it overstates socket writes and
 * file calls; perf charges only time on a core. bench/profile-layers.ts reads what `stop` writes.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Samples a second: off any timer's period, few enough that perf's own work stays small. */
export const PERF_HZ = 499;
export const PERF_NODE_ARGS = ['--perf-basic-prof'];

export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version']).status === 0;
}

/** Starts sampling `pid` (every thread, with call graphs); `stop` ends it and writes `<dir>/<name>.perf.txt` (the main thread). */
export function recordPerf(pid: number, dir: string, name: string): { stop(): Promise<string> } {
  const data = join(dir, `${name}.perf.data`);
  const recorder = spawn('perf', ['record', '-F', String(PERF_HZ), '-g', '-p', String(pid), '-o', data], { stdio: 'ignore' });
  return {
    async stop() {
      const ended = new Promise((resolve) => recorder.once('exit', resolve));
      recorder.kill('SIGINT');
      await ended;
      latestNamesOnly(`/tmp/perf-${pid}.map`);
      const out = join(dir, `${name}.perf.txt`);
      const fd = openSync(out, 'w');
      try {
        execFileSync('perf', ['script', '-i', data, '--tid', String(pid), '-F', 'tid,ip,sym,dso'], { stdio: ['ignore', fd, 'ignore'], maxBuffer: 1 << 30 });
      } finally {
        closeSync(fd);
      }
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
