import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname } from 'node:path';

/** An Appium server this agent runs (`svc agent --fake --appium`): its URL, and how to stop it. */
export interface RunningAppium {
  url: string;
  /** The Appium process (the bench reads its CPU time). */
  pid: number;
  close(): Promise<void>;
}

/**
 * What the child runs: Appium's own `main` with the given arguments; it says `ready` once listening,
 * and exits when its stdin closes, so it never outlives the agent that started it.
 */
const CHILD = `
const { main } = require('appium');
process.stdin.on('end', () => process.exit(0)).resume();
main(JSON.parse(process.argv[1])).then(
  () => process.stdout.write('ready\\n'),
  (err) => { process.stderr.write(String(err && err.message) + '\\n'); process.exit(1); },
);`;

/**
 * Starts Appium (from npm) with only its fake driver on a free loopback port, in a child process:
 * Appium loads ES-module-only dependencies through Node's require(esm), which a test runner's
 * module sandbox cannot, and a crash of Appium must not take the agent with it. The driver is found
 * as Appium documents for a project that depends on it: APPIUM_HOME is the package whose
 * package.json lists `appium` and `@appium/fake-driver`, and Appium reads the installed extensions
 * from its node_modules (no `appium driver install`, nothing downloaded).
 */
export async function startFakeAppium(log: (line: string) => void = () => undefined): Promise<RunningAppium> {
  const port = await freePort();
  const appiumHome = dirname(require.resolve('appium/package.json').replace(/\/node_modules\/appium\/package\.json$/, '/package.json'));
  const args = { port, address: '127.0.0.1', appiumHome, useDrivers: ['fake'], loglevel: 'error', logNoColors: true };
  const child = spawn(process.execPath, ['-e', CHILD, JSON.stringify(args)], { cwd: appiumHome, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stderr.on('data', (chunk: Buffer) => log(`appium: ${chunk.toString().trimEnd()}`));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`Appium exited before it was ready (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    close: async () => {
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
