import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs `script` in a child Node process (with ts-node, `nodeArgs` first) and returns its stdout. With
 * `installProcessPieces` the engine room's 'process' phase is installed first, as startRelayProcess
 * installs it for `npm start` and `svc relay`: the specs of V8 flag pieces run their workload both
 * ways, so dropping a piece from the list, or from the phase, fails them.
 */
export function runWithProcessPieces(script: string, nodeArgs: string[], installProcessPieces: boolean): string {
  const install = `require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'platform', 'install.ts'))}).installPlatform('process', { listening: new Promise(() => {}) });`;
  return execFileSync(process.execPath, [...nodeArgs, '-r', 'ts-node/register/transpile-only', '-e', `${installProcessPieces ? install : ''}\n${script}`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}
