import { Command } from 'commander';
import { clientCommands } from './client-commands';
import { runProgram, throwInsteadOfExiting } from './run-program';

/**
 * Entry point of the standalone CLI package (packages/cli/bin/svc.js): the client commands alone,
 * for CI runners that install the packed tarball instead of cloning the relay.
 */
export async function runClientCli(argv: string[], version: string): Promise<void> {
  const program = new Command('svc')
    .description('svc: upload builds to an svc relay and read its builds and apps, from CI or a terminal')
    .version(version, '-V, --version')
    .addHelpText(
      'after',
      `
Set SVC_URL (the relay's address) and SVC_TOKEN (a PAT, svc_pat_…) or pass --url/--token.
The relay itself and its operator commands (relay, admin, backup, …) run from the relay's repository.
Exit codes: 0 success, 1 the relay refused (its message on stderr), 2 usage error.

Examples:
  $ svc upload app-release.apk --status Backlog --label "$BRANCH"
  $ svc builds list --status Done
  $ svc apps list`,
    );
  for (const command of clientCommands()) program.addCommand(command);
  await runProgram(throwInsteadOfExiting(program), argv);
}
