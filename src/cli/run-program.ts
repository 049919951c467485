import { Command, CommanderError } from 'commander';
import { CliError, ExitCode, RelayRefusedError } from '../relay-client/client-errors';
import { printJson } from './output';

/**
 * Runs a `svc` program (the relay's whole tree or the standalone client) and maps every outcome to
 * the documented exit codes: 0 success (also --help and --version), 1 the relay refused or an
 * operator action failed (message on stderr), 2 usage error.
 */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeFor(err);
    // Under --json, stdout is one JSON document whatever happens: the result, or the error.
    if (asksForJson(argv) && !(err instanceof CommanderError && err.exitCode === 0)) printJson(errorJson(err));
  }
}

/** `--json` among the arguments (before a `--`): read from argv, so a usage error Commander throws while parsing is JSON too. */
function asksForJson(argv: string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** `{ error }`; a relay's refusal adds its HTTP `status` and the CLI's `hint`, when there is one. */
function errorJson(err: unknown): { error: string; status?: number; hint?: string } {
  if (err instanceof RelayRefusedError) return { error: err.relayMessage, status: err.status, ...(err.hint ? { hint: err.hint } : {}) };
  if (err instanceof CommanderError) return { error: err.message.replace(/^error: /, '') };
  if (err instanceof CliError) return { error: err.message };
  return { error: `unexpected error: ${(err as Error)?.message ?? err}` };
}

/** Every command of the tree throws instead of exiting, and points at --help after a usage error. */
export function throwInsteadOfExiting(command: Command): Command {
  command.exitOverride().showHelpAfterError('(run with --help for usage and examples)');
  for (const sub of command.commands) throwInsteadOfExiting(sub);
  return command;
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
