import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs src/main.ts (what `npm start` runs, compiled) in its own process with the given environment. */
function startMain(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register'), join(ROOT, 'src', 'main.ts')], {
    cwd: env.CWD ?? ROOT,
    env: { PATH: process.env.PATH, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Each test compiles the whole relay with ts-node (type-checked) first: over a minute on a busy 2-core machine. */
const SPAWNED_RELAY_TIMEOUT_MS = 180_000;

describe('starting the relay process', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a bad value stops it with exit code 1 and a message naming the key', async () => {
    const run = startMain({ SVC_PORT: 'eighty', SVC_DATA_DIR: join(dir, 'bad'), CWD: dir });
    expect(await run.exited).toBe(1);
    // one line, in the log format (JSON by default) like every other line the relay writes
    expect(run.output().trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'error', msg: 'svc relay: Invalid configuration SVC_PORT: expected a whole number from 0 to 65535, got "eighty"' }),
    ]);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  }, SPAWNED_RELAY_TIMEOUT_MS);

  it('starts on the environment’s port and data dir, migrates, and answers', async () => {
    const dataDir = join(dir, 'data');
    // debug: the start-up memory release says so a second after listening (checked below)
    const run = startMain({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_BCRYPT_COST: '4', SVC_LOG_LEVEL: 'debug', CWD: dir });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setInterval(() => {
          const match = /listening on http:\/\/127\.0\.0\.1:(\d+) \(data: (.*)\)/.exec(run.output());
          if (match) {
            clearInterval(timer);
            resolve(Number(match[1]));
          }
        }, 50);
        run.exited.then(() => {
          clearInterval(timer);
          reject(new Error(`exited early:\n${run.output()}`));
        });
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/status`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ initialized: false, canInitialize: true });
      expect(existsSync(join(dataDir, 'svc.sqlite'))).toBe(true);
      // the request line is written when the response finishes; give stdout a moment to arrive
      for (let i = 0; i < 40 && !/"msg":"GET \/api\/v1\/auth\/status 200/.test(run.output()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(run.output()).toMatch(/"msg":"GET \/api\/v1\/auth\/status 200/);
      // npm start gives back the young generation start-up grew (src/platform/v8/start-up-memory.ts)
      for (let i = 0; i < 200 && !/start-up memory released in \d+ ms: RSS \d+ → \d+ MB/.test(run.output()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(run.output()).toMatch(/start-up memory released in \d+ ms: RSS \d+ → \d+ MB/);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, SPAWNED_RELAY_TIMEOUT_MS);
});
