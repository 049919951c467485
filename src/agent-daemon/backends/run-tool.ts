import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { BackendError } from './device-backend';

/** Runs a device tool (adb, xcrun) and returns its stdout as bytes; any failure is a `failed` BackendError. */
export function runTool(command: string, args: string[], timeoutMs = 20_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs },
      (err, stdout, stderr) => {
        if (err) {
          const detail = stderr.toString('utf8').trim().split('\n').pop() || err.message;
          reject(new BackendError('failed', `${command} ${args[0] ?? ''} failed: ${detail}`));
          return;
        }
        resolve(stdout);
      },
    );
  });
}

/** Whether an executable of this name is on PATH. */
export async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // keep looking
    }
  }
  return false;
}
