/**
 * `npm run bench`: every benchmark with a target, in turn, each printing its own figures as it goes,
 * then one summary of every target the suites printed (met, MISSED, or FLOOR where even the
 * hand-written server misses it, with the ratio the line states), so the whole picture is on one
 * screen, and the run written to bench/results/<date>-<commit>.json (bench/support/run-report.ts;
 * BENCH_RESULTS_DIR writes elsewhere) for docs/performance.md to cite. A benchmark that fails to run
 * is reported as such and the others still run; the exit code is 1 when any failed to run (a MISS is
 * a finding, not a failure to measure).
 *
 * Issue 11's suites, then issue 27's: the soak for 10 minutes on SQLite and on PostgreSQL (items 1
 * and 4), ingest at 30,000 builds (item 2) and a million builds on both databases (item 3); then
 * issue 37's device-tests (eight parallel hub sessions against one, and the WebDriver hop).
 * The list runs twice over: `list` and `list:pg` hold the relay to the raw baseline (14 variants,
 * 30,000 builds, >= 0.5: issue 42's outside list target), `million` to the floor running the relay's
 * own statements (every variant, >= 0.8 answers/s, p99 <= 1.3×); `sign-in` and `ingest` hold issue 42's
 * sign-in and upload targets, the soaks its ratios to the soak floor.
 * BENCH_SUITES=soak,million (names below) runs some; BENCH_SOAK_MINUTES (10) shortens the soaks.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/relay';
import { formatSummary, readSuite, summarise, VERDICT_LINE, writeRunReport, type SuiteResult } from './support/run-report';

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
  { name: 'password-pool', script: 'bench:password-pool' },
  { name: 'sign-in', script: 'bench:sign-in' },
  { name: 'ingest', script: 'bench:ingest' },
  { name: 'soak', script: 'bench:soak', args: ['--minutes', SOAK_MINUTES] },
  { name: 'soak:pg', script: 'bench:soak', args: ['--minutes', SOAK_MINUTES], env: { BENCH_DATABASE: 'postgres' } },
  { name: 'million', script: 'bench:million' },
  { name: 'device-tests', script: 'bench:device-tests' },
];

/** What the result file keeps of a suite's output: its verdicts and the lines stating a ratio. */
const KEPT_LINE = new RegExp(`${VERDICT_LINE.source}|÷|\\bratio\\b`);

function run(suite: Suite): Promise<SuiteResult> {
  return new Promise((resolve) => {
    const args = ['run', '--silent', suite.script, ...(suite.args ? ['--', ...suite.args] : [])];
    const child = spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...suite.env } });
    const kept: string[] = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      kept.push(...lines.filter((line) => KEPT_LINE.test(line)));
    });
    child.on('close', (code) => {
      if (KEPT_LINE.test(pending)) kept.push(pending);
      resolve(readSuite(suite.name, code, kept));
    });
  });
}

async function main(): Promise<void> {
  const only = process.env.BENCH_SUITES?.split(',').filter(Boolean);
  const unknown = only?.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown?.length) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${SUITES.map((suite) => suite.name).join(', ')}`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short=7', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no').length > 0;
  const started = new Date();
  const startLoad = loadavg();
  const suites: SuiteResult[] = [];
  for (const suite of SUITES.filter((s) => !only || only.includes(s.name))) {
    console.log(`\n===== ${suite.name} (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}) =====`);
    suites.push(await run(suite));
  }
  const summary = summarise(suites);
  const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(0);
  console.log(`\n===== summary (${minutes} min; load average now ${loadavg().map((n) => n.toFixed(1)).join(' ')}) =====`);
  console.log(formatSummary(suites).join('\n'));
  console.log(`${summary.met} met, ${summary.missed} missed, ${summary.floor} past even the floor`);
  const file = writeRunReport(process.env.BENCH_RESULTS_DIR ?? join(ROOT, 'bench', 'results'), {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    commit,
    dirty,
    node: process.version,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryMb: Math.round(totalmem() / 1048576) },
    loadAverage: { start: startLoad, end: loadavg() },
    suites,
    summary,
  });
  console.log(`result file: ${file}${dirty ? ' (the tree had uncommitted changes)' : ''}`);
  if (summary.suitesNotFinished.length) process.exitCode = 1;
}

void main();
