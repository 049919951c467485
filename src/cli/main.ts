import 'reflect-metadata';
import { CommanderError } from 'commander';
import { CliError, ExitCode } from './cli-error';
import { buildProgram } from './program';

/**
 * `svc` entry point. Maps every outcome to the documented exit codes: 0 success (also --help and
 * --version), 1 the relay refused or an operator action failed (message on stderr), 2 usage error.
 */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeFor(err);
  }
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // Commander already printed its message (or the help); it exits 0 for help and version.
    return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (err instanceof CliError) {
    process.stderr.write(`svc: ${err.message}\n`);
    return err.exitCode;
  }
  process.stderr.write(`svc: unexpected error: ${(err as Error)?.stack ?? err}\n`);
  return ExitCode.refused;
}

if (require.main === module) {
  process.env.TZ ??= 'UTC';
  void runCli(process.argv);
}
