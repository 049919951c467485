import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { compiledCliMain } from './compiled-cli';


/**
 * Per-test bound for suites that spawn real `svc` processes: a cold start on a loaded 2-core CI
 * machine can take tens of seconds, so it is generous (it only catches hangs; speed is in bench/).
 */
export const CLI_TEST_TIMEOUT_MS = 120_000;

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const SVC_BIN = join(REPO_ROOT, 'bin', 'svc.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * The environment a CLI child gets: this process's, minus any SVC_* an outer shell set. NODE_PATH
 * lets the compiled copy (outside the repo) find the repo's node_modules; XDG_STATE_HOME is a temp
 * folder, so `svc upload`'s resume state never touches the real home.
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('SVC_')) env[key] = value;
  // XDG_STATE_HOME: where `svc upload` keeps unfinished resumable uploads, never the real home's.
  Object.assign(env, { NODE_PATH: join(REPO_ROOT, 'node_modules'), SVC_BCRYPT_COST: '4', TZ: 'UTC', XDG_STATE_HOME: stateDir() }, extra);
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}

let testStateDir: string | null = null;
/** One temp state folder per test process (created on first use). */
function stateDir(): string {
  return (testStateDir ??= mkdtempSync(join(tmpdir(), 'svc-state-')));
}

/** A folder with no svc.config.json, so the repo's example config never leaks into a test. */
export function emptyDir(prefix = 'svc-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Spawns `svc <args>` (the CLI compiled from src/, see compiled-cli.ts) and waits for it to exit. */
export function runCli(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000);
  return new Promise((resolvePromise) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    }),
  );
}

export function spawnCli(args: string[], options: CliRunOptions = {}): ChildProcess {
  return spawn(process.execPath, [compiledCliMain(REPO_ROOT), ...args], {
    cwd: options.cwd ?? emptyDir(),
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A JSON log line's message (the relay logs JSON by default); any other line as it is. */
function messageOf(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const entry = JSON.parse(line);
    return typeof entry?.msg === 'string' ? entry.msg : line;
  } catch {
    return line;
  }
}

/** A long-running `svc relay`: resolves once a stdout line matches, collecting everything printed (log lines by their message). */
export class RunningCli {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.lines.push(messageOf(line)));
    child.stderr!.on('data', (c) => (this.stderr += c));
    this.exited = new Promise((r) => child.on('close', (code) => r(code)));
  }

  async waitFor(pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of this.lines) {
        const match = pattern.exec(line);
        if (match) return match;
      }
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no line matching ${pattern}; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}
