import { Command } from 'commander';
import { agentCommand } from '../agent-daemon/main';
import { RELAY_VERSION } from '../relay/relay-version';
import { clientCommands } from './client-commands';
import { adminCommand } from './commands/admin.command';
import { auditCommand } from './commands/audit.command';
import { backupCommand, restoreCommand } from './commands/backup.command';
import { mcpCommand } from './commands/mcp.command';
import { migrateCommand } from './commands/migrate.command';
import { relayCommand } from './commands/relay.command';
import { throwInsteadOfExiting } from './run-program';

/** The whole `svc` command tree. Heavy modules (Nest, the database) load only inside operator commands. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('svc relay: run the relay, administer it, and talk to it from CI')
    .version(RELAY_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage and examples)')
    .addHelpText(
      'after',
      `
Client commands talk to a relay over its API: set SVC_URL and SVC_TOKEN (a PAT) or pass --url/--token.
Operator commands (relay, admin, audit, backup, restore, migrate) run on the relay host and use its data dir.
svc agent runs the reference agent on a machine that hosts simulators or emulators.
svc mcp serves the relay to an AI agent over the Model Context Protocol (stdio).
Exit codes: 0 success, 1 the relay refused (its message on stderr), 2 usage error.

Examples:
  $ svc relay --tunnel cloudflared
  $ svc admin init --email you@example.com
  $ svc upload app-release.apk --status Backlog --label "$BRANCH" --json
  $ svc builds list --status Done
  $ svc backup /backups/svc.tar
  $ svc agent --relay https://relay.example.com --name mac-mini-3 --fake`,
    );
  const commands = [
    relayCommand(),
    adminCommand(),
    backupCommand(),
    restoreCommand(),
    migrateCommand(),
    auditCommand(),
    ...clientCommands(),
    mcpCommand(),
    agentCommand(),
  ];
  for (const command of commands) program.addCommand(command);
  return throwInsteadOfExiting(program);
}
