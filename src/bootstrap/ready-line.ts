import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AuthService } from '../auth/auth.service';
import type { RelayConfig } from '../config/relay-config';
import type { JsonLogger } from '../logging/json-logger';
import { PublicUrlService } from '../relay/public-url.service';
import { startupSummary } from './startup-summary';

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

/**
 * The start-up lines of `npm start` and `svc relay`, through the relay's logger (its format, at every
 * level): where it listens, what it is configured with (startup-summary.ts), and the ready line.
 */
export async function announceStart(app: NestExpressApplication, config: RelayConfig, logger: JsonLogger): Promise<number> {
  const port = (app.getHttpServer().address() as { port: number }).port;
  const scheme = config.tlsCert ? 'https' : 'http';
  logger.announce(`svc relay listening on ${scheme}://${config.host}:${port} (data: ${config.dataDir})`);
  logger.announce('configuration', 'Config', startupSummary(app, config));
  // One log entry a line: a text log escapes line breaks inside an entry.
  for (const line of (await readyLine(app, config, port)).split('\n')) logger.announce(line);
  return port;
}
