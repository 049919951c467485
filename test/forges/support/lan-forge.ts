import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { lanHostAddress, leaseLanAddress, onLan } from '../../support/test-lan';
import type { TestForge } from './forge-server';

/**
 * Puts a local forge on the run's test LAN (test/support/test-lan.ts), where a forge added in the
 * dashboard may be (the webhooks' rule for API-registered destinations refuses this host): the
 * forge listens on this machine's LAN address and a forwarder at an address of its own on the
 * LAN's other side leads to it. `forge.url` becomes the forwarder's. Returns the stop function.
 */
export async function putForgeOnLan(forge: TestForge): Promise<() => Promise<void>> {
  await forge.start(lanHostAddress());
  const local = new URL(forge.url);
  const { address, release } = leaseLanAddress();
  const child: ChildProcess = spawn('ip', onLan(process.execPath, join(__dirname, 'tcp-forwarder.js'), address, local.hostname, local.port), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await exited;
    release();
    await forge.close();
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`forwarder exited (${code})`)));
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line).port));
    });
    forge.url = `http://${address}:${port}${local.pathname.replace(/\/$/, '')}`;
    return stop;
  } catch (err) {
    await stop();
    throw err;
  }
}
