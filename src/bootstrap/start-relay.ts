import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ExtraImports } from '../app.module';
import { describeTightened, keepNewFilesPrivate, tightenDataFolder } from '../storage/private-modes';
import { RelayConfig } from '../config/relay-config';
import { JsonLogger } from '../logging/json-logger';
import { PublicUrlService } from '../relay/public-url.service';
import { RelayHostDetailsService } from '../relay/relay-host-details.service';
import { installPlatform } from '../platform/install';
import { createRelayApp } from './create-app';
import { announceRelay, withdrawRelay } from './relay-presence';
import { logUnhandledRejections } from './unhandled-rejections';

/** Creates the relay and starts listening on the configured host and port. */
export async function startRelay(
  config: RelayConfig,
  logger?: JsonLogger,
  extraImports: ExtraImports = [],
): Promise<NestExpressApplication> {
  const app = await createRelayApp(config, logger, extraImports);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  app.get(RelayHostDetailsService).setListeningPort(port);
  // A relay.url nobody else can open is left out of links and redirects: said once here, and on the Relay page.
  for (const warning of app.get(PublicUrlService).warnings()) app.get(JsonLogger).warn(warning, 'PublicUrl');
  announceRelay(config.dataDir, { pid: process.pid, port, host: config.host, startedAt: new Date().toISOString() });
  app.getHttpServer().once('close', () => withdrawRelay(config.dataDir));
  return app;
}

/**
 * startRelay() for a process that is the relay (npm start, `svc relay`): the engine room's 'process'
 * pieces (V8 tuned for it around the start: heap growth before, the start-up's young generation
 * given back after listening), and everything it writes kept from other local users (umask 077,
 * the data folder tightened). Relays built inside a test process leave that process's V8 and umask alone.
 */
export async function startRelayProcess(config: RelayConfig, logger: JsonLogger): Promise<NestExpressApplication> {
  // An unhandled rejection is logged, not fatal (unhandled-rejections.ts).
  logUnhandledRejections(logger);
  keepNewFilesPrivate();
  const tightened = describeTightened(config.dataDir, tightenDataFolder(config));
  if (tightened) logger.warn(tightened, 'FileModes');
  let listened!: () => void;
  installPlatform('process', { logger, listening: new Promise<void>((resolve) => (listened = resolve)) });
  const app = await startRelay(config, logger);
  listened();
  return app;
}
