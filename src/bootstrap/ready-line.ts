import type { INestApplicationContext } from '@nestjs/common';
import { AuthService } from '../auth/auth.service';
import type { RelayConfig } from '../config/relay-config';
import { PublicUrlService } from '../relay/public-url.service';

const LOCAL_HOSTS = new Set(['0.0.0.0', '::', '', '127.0.0.1', '::1', 'localhost']);

/** The dashboard's address on the relay host itself: the one a first visit may create the first Admin from (docs/auth.md). */
export function localDashboardUrl(config: RelayConfig, port: number): string {
  const host = LOCAL_HOSTS.has(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tlsCert ? 'https' : 'http'}://${host}:${port}/`;
}

/**
 * The one line `npm start` and `svc relay` end their start-up with: what to do next. With no account
 * yet, which URL creates the first Admin (only a browser on the relay host may, so from elsewhere
 * `svc admin init` on this machine); otherwise where the relay is (its canonical origin), and
 * below it why a configured relay.url is not that.
 */
export async function readyLine(app: INestApplicationContext, config: RelayConfig, port: number): Promise<string> {
  const local = localDashboardUrl(config, port);
  const { initialized } = await app.get(AuthService, { strict: false }).status(true);
  const publicUrl = app.get(PublicUrlService, { strict: false });
  const line = initialized
    ? `Relay ready at ${publicUrl.publicBaseUrl() ?? local}`
    : `Open ${local} in a browser on this machine to create the first Admin ` +
      '(from another machine: run `npx svc admin init --email you@example.com` here).';
  return [line, ...publicUrl.warnings().map((warning) => `Warning: ${warning}`)].join('\n');
}
