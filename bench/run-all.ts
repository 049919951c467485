/**
 * `npm run bench`: every benchmark of issue 11 in turn, each printing its own figures as it goes,
 * then one summary of every verdict line (those ending in OK or MISS) so the whole picture is on
 * one screen. A benchmark that fails to run is reported as such and the others still run; the exit
 * code is 1 when any failed to run (a MISS is a finding, not a failure to measure).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { ROOT } from './support/relay';

const BENCHES = ['list', 'list:pg', 'ingest', 'upload', 'screenshot', 'startup', 'soak'];

/** A verdict line: the benchmarks print OK or MISS after each compared figure (some add a CPU ratio after it). */
const VERDICT = /\b(OK|MISS|NON-200)\b/;

function run(name: string): Promise<{ verdicts: string[]; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', `bench:${name}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const verdicts: string[] = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      verdicts.push(...lines.filter((line) => VERDICT.test(line)));
    });
    child.on('close', (code) => {
      if (VERDICT.test(pending)) verdicts.push(pending);
      resolve({ verdicts, code });
    });
  });
}

async function main(): Promise<void> {
  const only = process.env.BENCH_SUITES?.split(',').filter(Boolean);
  const summary: string[] = [];
  let failed = false;
  for (const name of only ?? BENCHES) {
    console.log(`\n===== bench:${name} =====`);
    const { verdicts, code } = await run(name);
    summary.push(`bench:${name}${code === 0 ? '' : `  (did not finish: exit ${code})`}`, ...verdicts.map((line) => `  ${line.trim()}`));
    if (code !== 0) failed = true;
  }
  const misses = summary.filter((line) => /\b(MISS|NON-200)\b/.test(line)).length;
  console.log(`\n===== summary (load average now ${loadavg().map((n) => n.toFixed(1)).join(' ')}) =====`);
  console.log(summary.join('\n'));
  console.log(misses ? `${misses} figure(s) below target` : 'every figure at or past its target');
  if (failed) process.exitCode = 1;
}

void main();
