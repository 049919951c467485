/** Shared by the benchmarks: the relay as a child process, a PAT, free ports, RSS, load runs. */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export const ROOT = join(__dirname, '..', '..');
export const MB = 1024 * 1024;

export interface RunningRelay {
  child: ChildProcess;
  port: number;
  base: string;
  /** ms from spawn to the "listening" line. */
  startMs: number;
  stop(): Promise<void>;
}

/** Compiles the relay once into dist/ (as `npm start` does). */
export function buildRelay(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-needed.js'), 'relay'], { cwd: ROOT, stdio: 'inherit' });
}

/** `BENCH_NODE_ARGS="--flag …"`: node options for every relay a benchmark starts (for A/B runs of V8 flags). */
const EXTRA_NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];

/**
 * `BENCH_RELAY_ENV='{"NAME":"value"}'`: environment for every relay a benchmark starts and for nothing else (an A/B
 * of what the C library reads at exec time, e.g. `MALLOC_ARENA_MAX`, without the benchmark's own process taking it).
 */
const EXTRA_RELAY_ENV: Record<string, string> = process.env.BENCH_RELAY_ENV ? JSON.parse(process.env.BENCH_RELAY_ENV) : {};

/**
 * The relay as `npm start` runs it (plain node on dist/, default log level), on a free port, with `env` added;
 * `checkout` names another built checkout to run instead of this one (an A/B against an older commit).
 */
export async function startRelay(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = [], checkout = ROOT): Promise<RunningRelay> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...EXTRA_NODE_ARGS, ...nodeArgs, join(checkout, 'dist', 'main.js')], {
    cwd: checkout,
    env: {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      SVC_PORT: String(port),
      SVC_HOST: '127.0.0.1',
      SVC_BCRYPT_COST: '4',
      ...EXTRA_RELAY_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitForListening(child);
  const startMs = performance.now() - started;
  return {
    child,
    port,
    base: `http://127.0.0.1:${port}/api/v1`,
    startMs,
    stop: () => stopChild(child),
  };
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A hand-written baseline server (`bench/baselines/<script>`) in its own process, started the same
 * way for every benchmark (TypeScript through ts-node), once it says it listens; `port` is its last argument.
 */
export async function startBaseline(script: string, args: string[], port: number, nodeArgs: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '-r', 'ts-node/register/transpile-only', join(__dirname, '..', 'baselines', script), ...args, String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await waitForListening(child);
  return child;
}

export function waitForListening(child: ChildProcess, marker = 'listening on'): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (!out.includes(marker)) return;
      // From here on the output is drained unread (the request log at the default level is busy).
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve();
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
}

/** First admin, signed in, and a PAT with `scope`. */
export async function issuePat(base: string, scope = 'builds:write'): Promise<string> {
  return (await issuePats(base, [scope]))[0];
}

/** First admin, signed in, and one PAT per scope. */
const BENCH_EMAIL = 'bench@example.com';
const BENCH_PASSWORD = 'bench-password-1';

export async function issuePats(base: string, scopes: string[]): Promise<string[]> {
  await json(`${base}/auth/init`, 'POST', { email: BENCH_EMAIL, password: BENCH_PASSWORD });
  const cookie = await signIn(base);
  const tokens: string[] = [];
  for (const scope of scopes) {
    tokens.push(((await json(`${base}/tokens`, 'POST', { name: `bench ${scope}`, scope }, cookie)) as { token: string }).token);
  }
  return tokens;
}

/** The session cookie of the bench's admin (issuePats signed it up). */
export async function signIn(base: string): Promise<string> {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: BENCH_EMAIL, password: BENCH_PASSWORD }),
  });
  return (login.headers.get('set-cookie') ?? '').split(';')[0];
}

export async function json(url: string, method: string, body: unknown, cookie?: string): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** VmHWM ("high water mark" = peak resident set size) of a Linux process, in kB; null elsewhere. */
export function peakRssKb(pid: number): number | null {
  return procStatusKb(pid, 'VmHWM');
}

export function rssKb(pid: number): number | null {
  return procStatusKb(pid, 'VmRSS');
}

function procStatusKb(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export interface LoadResult {
  requests: number;
  /** The recorded window's length. */
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
  errors: number;
  /** Answers over the whole run, warm-up included. */
  completed: number;
  /** CPU time (user + system) the server process spent per answer over the whole run, in ms. */
  cpuMsPerRequest: number;
  /** Every recorded latency, ascending (with `keepLatencies`). */
  latencies?: number[];
}

/**
 * Closed-loop GET load from a worker thread (bench/support/load-worker.js). With `serverPid`, also
 * the server's CPU time per answer: on a machine shared with other work, throughput and latency
 * follow whoever else is running, while CPU time per request barely moves.
 */
export async function runLoad(options: {
  serverPid?: number;
  port: number;
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  warmupSeconds?: number;
  /** Record past `seconds` until this many answers (at most `maxSeconds`). */
  minAnswers?: number;
  maxSeconds?: number;
  keepLatencies?: boolean;
}): Promise<LoadResult> {
  const { serverPid, ...workerData } = options;
  const cpuBefore = serverPid ? cpuMs(serverPid) : 0;
  const result = await new Promise<LoadResult>((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'load-worker.js'), { workerData });
    worker.once('message', (message: LoadResult) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  result.cpuMsPerRequest = serverPid ? (cpuMs(serverPid) - cpuBefore) / Math.max(1, result.completed) : NaN;
  return result;
}

/** User + system CPU time of a Linux process (or of its thread `thread`: the pid is the main thread's) so far, in ms (/proc, clock ticks of 10 ms). */
export function cpuMs(pid: number, thread?: number): number {
  try {
    const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
