import { Command } from 'commander';
import { ClientOptions, connectionFrom, withClientOptions } from '../client/client-options';
import { RelayClient } from '../../relay-client/relay-client';
import { requiresScope } from '../client/required-scope';
import type { AppListItem } from '../../relay-client/relay-types';
import { printItems } from '../output';

export function appsCommand(): Command {
  const apps = new Command('apps')
    .description('Apps known to the relay')
    .addHelpText('after', '\nExamples:\n  $ svc apps list\n  $ svc apps list --json');
  apps.addCommand(
    withClientOptions(new Command('list').description('List apps with their latest build (GET /apps)'))
      .addHelpText('after', '\nExamples:\n  $ svc apps list\n  $ svc apps list --json | jq \'.items[].bundle_id_key\'')
      .action(
        requiresScope(['view'], async (options: ClientOptions) => {
          const page = await new RelayClient(connectionFrom(options)).getJson<{ items: AppListItem[] }>('/apps');
          printItems(
            options,
            page,
            ['ID', 'NAME', 'BUNDLE ID', 'PLATFORM', 'LATEST BUILD', 'VERSION', 'STATUS', 'UPLOADED'],
            (a) => [
              a.id,
              a.name,
              a.bundle_id_key,
              a.platform,
              a.latest_build_id,
              a.version_name ? `${a.version_name} (${a.build_number ?? '-'})` : null,
              a.status_label,
              a.latest_uploaded_at,
            ],
          );
        }),
      ),
  );
  return apps;
}
