import { Command, InvalidArgumentError } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { usageError } from '../../relay-client/client-errors';
import {
  ClientOptions,
  connectionFrom,
  parseChoice,
  parseNonNegativeInt,
  parsePlatform,
  parsePositiveInt,
  parseStatus,
  withClientOptions,
} from '../client/client-options';
import { Progress, progressFor } from '../client/progress-bar';
import { RelayClient } from '../../relay-client/relay-client';
import { requiresScope } from '../client/required-scope';
import type { Build, BuildPage } from '../../relay-client/relay-types';
import { formatBytes, formatRecord, printItems, printJson } from '../output';
import { VERDICT_IS_A_PERSONS_DECISION } from './verdict-note';

interface ListOptions extends ClientOptions {
  page?: number;
  limit?: number;
  search?: string;
  platform?: string;
  status?: string;
  appId?: number;
  branch?: string;
  pullRequest?: number;
  commit?: string;
  gate?: string;
  sort?: string;
  dir?: string;
}

export function buildsCommand(): Command {
  const builds = new Command('builds').description('List, show and download builds').addHelpText(
    'after',
    `
Examples:
  $ svc builds list --status Backlog --platform android
  $ svc builds show 42 --json
  $ svc builds download 42 -o ./artifacts/`,
  );
  builds.addCommand(listCommand());
  builds.addCommand(showCommand());
  builds.addCommand(downloadCommand());
  // No status-changing command on purpose; people who look for one are told why.
  for (const name of ['set-status', 'status', 'update']) {
    builds.addCommand(
      new Command(name)
        .allowUnknownOption()
        .allowExcessArguments()
        .action(() => {
          throw usageError(VERDICT_IS_A_PERSONS_DECISION);
        }),
      { hidden: true },
    );
  }
  return builds;
}

function listCommand(): Command {
  return withClientOptions(
    new Command('list')
      .description('List builds, newest first (GET /builds)')
      .option('--page <n>', 'page number, from 0', parseNonNegativeInt)
      .option('--limit <n>', 'builds per page, 1 to 100 (default 20)', parseLimit)
      .option('-q, --search <text>', 'search app, version, build number, label, branch, pull request (#17) and commit (7+ hex characters)')
      .option('--platform <platform>', 'ios or android', parsePlatform)
      .option('--status <status>', 'Backlog, "In Progress", Done or Rejected', parseStatus)
      .option('--app-id <id>', 'only builds of this app', parsePositiveInt)
      .option('--branch <name>', 'only builds uploaded from this branch (exact)')
      .option('--pull-request <number>', 'only builds of this pull (merge) request', parsePositiveInt)
      .option('--commit <sha>', 'only builds of this commit (4 or more leading hex characters)')
      .option('--gate <state>', 'only builds whose release gate is pending, passed or failed', parseChoice(['pending', 'passed', 'failed']))
      .option('--sort <field>', 'uploaded_at, version_name or status_label', parseChoice(['uploaded_at', 'version_name', 'status_label']))
      .option('--dir <dir>', 'asc or desc', parseChoice(['asc', 'desc'])),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ svc builds list
  $ svc builds list --app-id 3 --status Done --limit 5
  $ svc builds list -q 2.4 --sort version_name --dir asc --json
  $ svc builds list --search feature/login
  $ svc builds list --pull-request 17 --commit 4f2a9c0
  $ svc builds list --gate failed`,
    )
    .action(
      requiresScope(['builds:write'], async (options: ListOptions) => {
        const page = await new RelayClient(connectionFrom(options)).getJson<BuildPage>('/builds', {
          page: options.page,
          limit: options.limit,
          search: options.search,
          platform: options.platform,
          status: options.status,
          app_id: options.appId,
          branch: options.branch,
          pull_request: options.pullRequest,
          commit: options.commit,
          gate: options.gate,
          sort: options.sort,
          dir: options.dir,
        });
        printItems(
          options,
          page,
          ['ID', 'APP', 'NAME', 'VERSION', 'PLATFORM', 'STATUS', 'LABEL', 'SOURCE', 'UPLOADED'],
          (b) => [b.id, b.app_id, b.name, `${b.version_name} (${b.build_number})`, b.platform, b.status_label, b.version_label, sourceText(b.provenance), b.uploaded_at],
          `${page.items.length} of ${page.total} build(s)\n`,
        );
      }),
    );
}

function showCommand(): Command {
  return withClientOptions(
    new Command('show').description('Show one build (GET /builds/:id)').argument('<id>', 'build id', parsePositiveInt),
  )
    .addHelpText('after', '\nExamples:\n  $ svc builds show 42\n  $ svc builds show 42 --json | jq .status_label')
    .action(
      requiresScope(['builds:write'], async (id: number, options: ClientOptions) => {
        const build = await new RelayClient(connectionFrom(options)).getJson<Build>(`/builds/${id}`);
        if (options.json) return printJson(build);
        // A flag is read by its sentence; the rest of it (kind, subject) is for --json.
        process.stdout.write(formatRecord({ ...build, ...(build.flags ? { flags: build.flags.map((f) => f.reason) } : {}) }));
      }),
    );
}

function downloadCommand(): Command {
  return withClientOptions(
    new Command('download')
      .description('Download a build file (GET /builds/:id/download)')
      .argument('<id>', 'build id', parsePositiveInt)
      .option('-o, --output <path>', 'file to write, or an existing directory (default: the relay\'s file name here)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ svc builds download 42
  $ svc builds download 42 -o app.apk
  $ svc builds download 42 -o ./artifacts/ --json`,
    )
    .action(
      requiresScope(['builds:write', 'view'], async (id: number, options: ClientOptions & { output?: string }) => {
        const client = new RelayClient(connectionFrom(options));
        let progress: Progress | null = null;
        const result = await client.download(
          `/builds/${id}/download`,
          (suggested) => destination(options.output, suggested ?? `build-${id}`),
          (total) => (progress = total === null ? null : progressFor(`Downloading build #${id}`, total, options.json)),
          (bytes) => progress?.advance(bytes),
        );
        (progress as Progress | null)?.finish();
        if (options.json) return printJson({ id, path: result.path, bytes: result.bytes });
        process.stdout.write(`Saved build #${id} to ${result.path} (${formatBytes(result.bytes)})\n`);
      }),
    );
}

/**
 * Where a build came from, in one cell: its branch, its pull request (`PR #17`), or both
 * (`feature/login (PR #17)`); the commit's first 7 characters when it gave only that.
 */
function sourceText(provenance: Build['provenance']): string | null {
  if (!provenance) return null;
  const pullRequest = provenance.pull_request === null ? null : `PR #${provenance.pull_request}`;
  if (provenance.branch) return pullRequest ? `${provenance.branch} (${pullRequest})` : provenance.branch;
  return pullRequest ?? provenance.commit?.slice(0, 7) ?? null;
}

function parseLimit(value: string): number {
  const n = parsePositiveInt(value);
  if (n > 100) throw new InvalidArgumentError('expected at most 100');
  return n;
}

/** `-o` names a file, or an existing directory to put the relay's file name in; default is the current dir. */
function destination(output: string | undefined, suggested: string): string {
  if (!output) return resolve(suggested);
  const full = resolve(output);
  if ((existsSync(full) && statSync(full).isDirectory()) || /[\\/]$/.test(output)) return join(full, suggested);
  return full;
}
