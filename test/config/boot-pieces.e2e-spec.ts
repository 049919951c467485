import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { cliEnv, emptyDir, REPO_ROOT } from '../cli/cli-process';
import { compiledCliMain } from '../cli/compiled-cli';

/**
 * The engine room's 'boot' pieces (src/bootstrap/boot-process.ts) as `npm start` installs them: before
 * any other module loads. Seen through V8's own trace (--trace-gc-verbose prints "Memory reducer: …"
 * each time its memory reducer looks at the heap), in a process that starts and then sits idle.
 */
const compiledMain = () => join(dirname(dirname(compiledCliMain(REPO_ROOT))), 'main.js');

/** V8 looks 8 s after the heap first grows, and again every 8 s while the process is busy: 11 s sees the first look. */
const IDLE_MS = 11_000;

/**
 * The "Memory reducer:" lines of `node <nodeArgs> <args>` over `ms`, then SIGTERM; with `untilFirst`,
 * SIGTERM as soon as one is printed (V8 runs the look as a task of the event loop, so a relay still
 * starting on a loaded machine shows it seconds later than an idle one).
 */
function reducerLines(nodeArgs: string[], args: string[], ms: number, untilFirst = false): Promise<string[]> {
  const cwd = emptyDir('svc-boot-');
  const child = spawn(process.execPath, ['--trace-gc', '--trace-gc-verbose', ...nodeArgs, ...args], {
    cwd,
    env: cliEnv({ SVC_DATA_DIR: join(cwd, 'data'), SVC_PORT: '0', SVC_HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const read = (chunk: Buffer) => {
    out += chunk.toString();
    if (untilFirst && out.includes('Memory reducer:')) child.kill('SIGTERM');
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const timer = setTimeout(() => child.kill('SIGTERM'), ms);
  return new Promise((resolve) =>
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out.split('\n').filter((line) => line.includes('Memory reducer:')));
    }),
  );
}

describe("the 'boot' pieces: V8's memory reducer kept from an idle relay", () => {
  it('V8 alone looks, in a process that loads a few modules and then idles', async () => {
    const script = `require('reflect-metadata'); require(${JSON.stringify(join(REPO_ROOT, 'node_modules', 'typescript'))}); setTimeout(() => {}, ${IDLE_MS + 5000});`;
    expect((await reducerLines([], ['-e', script], IDLE_MS, true)).length).toBeGreaterThan(0);
  }, 60_000);

  it('npm start never lets it look', async () => {
    expect(await reducerLines([], [compiledMain()], IDLE_MS)).toEqual([]);
  }, 60_000);

  it('leaves the command line its say', async () => {
    expect((await reducerLines(['--gc-memory-reducer-start-delay-ms=300'], [compiledMain()], 30_000, true)).length).toBeGreaterThan(0);
  }, 60_000);
});
