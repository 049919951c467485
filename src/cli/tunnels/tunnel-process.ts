import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CliError } from '../../relay-client/client-errors';
import type { TunnelProgram } from './tunnel-programs';

export interface RunningTunnel {
  publicUrl: string;
  process: ChildProcess;
  stop(): void;
}

const URL_TIMEOUT_MS = 45_000;

/**
 * Starts a tunnel program and resolves with the public URL it prints. Fails with the program's last
 * output lines when it exits first or stays silent too long.
 */
export function startTunnel(program: TunnelProgram, executable: string, localUrl: string): Promise<RunningTunnel> {
  const child = spawn(executable, program.args(localUrl), { stdio: ['ignore', 'pipe', 'pipe'] });
  const recent: string[] = [];
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      stop();
      const tail = recent.length ? `\n${program.name} said:\n  ${recent.join('\n  ')}` : '';
      reject(new CliError(`${program.name} ${reason}${tail}`));
    };
    const timer = setTimeout(() => fail(`gave no public URL within ${URL_TIMEOUT_MS / 1000} s`), URL_TIMEOUT_MS);
    let found = false;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
        if (found) return;
        recent.push(line);
        if (recent.length > 8) recent.shift();
        const publicUrl = program.publicUrlFrom(line);
        if (!publicUrl) return;
        found = true;
        clearTimeout(timer);
        resolve({ publicUrl: publicUrl.replace(/\/+$/, ''), process: child, stop });
      });
    }
    child.on('error', (err) => fail(`could not be started: ${err.message}`));
    child.on('exit', (code, signal) => {
      if (!found) fail(`exited (${signal ?? `code ${code}`}) before giving a public URL`);
    });
  });
}
