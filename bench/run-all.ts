/**
 * `npm run bench`: every benchmark with a target, in turn, each printing its own figures as it goes,
 * then one summary of every verdict line (those ending in OK or MISS, and the floors' FLOOR lines: the
 * million builds' and the soaks') so the whole picture is on one screen. A benchmark that fails to run is reported as
 * such and the others still run; the exit code is 1 when any failed to run (a MISS is a finding, not
 * a failure to measure).
 *
 * Issue 11's suites, then issue 27's: the soak for 10 minutes on SQLite and on PostgreSQL (items 1
 * and 4), ingest at 30,000 builds (item 2) and a million builds on both databases (item 3).
 * BENCH_SUITES=soak,million (names below) runs some; BENCH_SOAK_MINUTES (10) shortens the soaks.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { ROOT } from './support/relay';

interface Suite {
  name: string;
  script: string;
  args?: string[];
  env?: Record<string, string>;
}

const SOAK_MINUTES = process.env.BENCH_SOAK_MINUTES ?? '10';

const SUITES: Suite[] = [
  { name: 'list', script: 'bench:list' },
  { name: 'list:pg', script: 'bench:list:pg' },
  { name: 'upload', script: 'bench:upload' },
  { name: 'screenshot', script: 'bench:screenshot' },
  { name: 'startup', script: 'bench:startup' },
  { name: 'ingest', script: 'bench:ingest' },
  { name: 'soak', script: 'bench:soak', args: ['--minutes', SOAK_MINUTES] },
  { name: 'soak:pg', script: 'bench:soak', args: ['--minutes', SOAK_MINUTES], env: { BENCH_DATABASE: 'postgres' } },
  { name: 'million', script: 'bench:million' },
];

/** A verdict line: the benchmarks print OK or MISS after each compared figure (some add a CPU ratio after it). */
const VERDICT = /\b(OK|MISS|NON-200|FLOOR)\b/;

function run(suite: Suite): Promise<{ verdicts: string[]; code: number | null }> {
  return new Promise((resolve) => {
    const args = ['run', '--silent', suite.script, ...(suite.args ? ['--', ...suite.args] : [])];
    const child = spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...suite.env } });
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
  const unknown = only?.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown?.length) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${SUITES.map((suite) => suite.name).join(', ')}`);
  const summary: string[] = [];
  let failed = false;
  const started = Date.now();
  for (const suite of SUITES.filter((s) => !only || only.includes(s.name))) {
    console.log(`\n===== ${suite.name} (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}) =====`);
    const { verdicts, code } = await run(suite);
    summary.push(`${suite.name}${code === 0 ? '' : `  (did not finish: exit ${code})`}`, ...verdicts.map((line) => `  ${line.trim()}`));
    if (code !== 0) failed = true;
  }
  const misses = summary.filter((line) => /\b(MISS|NON-200)\b/.test(line)).length;
  const minutes = ((Date.now() - started) / 60_000).toFixed(0);
  console.log(`\n===== summary (${minutes} min; load average now ${loadavg().map((n) => n.toFixed(1)).join(' ')}) =====`);
  console.log(summary.join('\n'));
  console.log(misses ? `${misses} figure(s) below target` : 'every figure at or past its target');
  if (failed) process.exitCode = 1;
}

void main();
