import 'reflect-metadata';
import { buildProgram } from './program';
import { runProgram } from './run-program';

/** The relay's `svc` entry point (bin/svc.js): every command, client and operator. */
export async function runCli(argv: string[]): Promise<void> {
  await runProgram(buildProgram(), argv);
}

if (require.main === module) {
  process.env.TZ ??= 'UTC';
  void runCli(process.argv);
}
