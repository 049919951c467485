import type { Command } from 'commander';
import { appsCommand } from './commands/apps.command';
import { buildsCommand } from './commands/builds.command';
import { resultsCommand } from './commands/results.command';
import { uploadCommand } from './commands/upload.command';

/**
 * The commands that only talk to a relay over HTTP: the one implementation behind both the relay's
 * `svc` and the standalone CLI package (packages/cli, compiled from client-main.ts). Nothing reachable
 * from here may import the relay (Nest, the database, its config): the package's build, rooted at
 * src/cli, fails if it does.
 */
export function clientCommands(): Command[] {
  return [uploadCommand(), buildsCommand(), appsCommand(), resultsCommand()];
}
