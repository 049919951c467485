import { ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { compiledCliMain } from '../../cli/compiled-cli';

const ROOT = join(__dirname, '..', '..', '..');

export interface ChildRelay {
  process: ChildProcess;
  url: string;
  /** Everything the relay wrote to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<string>;
  kill: (signal?: NodeJS.Signals) => Promise<string>;
}

/**
 * The relay as `npm start` runs it (src/main.ts, configuration from SVC_* variables), in a process
 * of its own so a test can kill -9 it. Sources are compiled on the fly (ts-node, transpile only,
 * as jest does), so no `nest build` is needed; the port is read from the start-up line.
 */
export function startChildRelay(dataDir: string, env: Record<string, string> = {}, timeoutMs = 60_000, compiled = false): Promise<ChildRelay> {
  // compiled: src/main.ts from the tests' compiled copy (test/cli/compiled-cli.ts), which starts in about a second, not ts-node's tens under load.
  const args = compiled
    ? [join(dirname(dirname(compiledCliMain(ROOT))), 'main.js')]
    : ['-r', require.resolve('ts-node/register/transpile-only'), join(ROOT, 'src', 'main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: dataDir, // no svc.config.json here: configuration comes from the variables alone
    env: {
      PATH: process.env.PATH ?? '',
      // The compiled copy lives outside the repo: it finds the repo's packages through NODE_PATH.
      ...(compiled ? { NODE_PATH: join(ROOT, 'node_modules') } : {}),
      TZ: 'UTC',
      TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      SVC_DATA_DIR: dataDir,
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_BCRYPT_COST: '4',
      SVC_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`relay did not start within ${timeoutMs} ms:\n${output.slice(-2000)}`));
    }, timeoutMs);
    const onData = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        process: child,
        url: match[1],
        output: () => output,
        exited,
        kill: (signal = 'SIGKILL') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`relay exited (${how}) before listening:\n${output.slice(-2000)}`));
    });
  });
}
