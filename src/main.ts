// First, before any other module loads: the engine room's 'boot' pieces (bootstrap/boot-process.ts).
import './bootstrap/boot-first';
import 'reflect-metadata';
import { ConfigError } from './config/config-error';
import { loadConfig, peekLogSettings } from './config/config.loader';
import { JsonLogger } from './logging/json-logger';

/**
 * `npm start`: the relay on the configuration from svc.config.json and SVC_* variables. The logger
 * exists before anything is printed (its level and format read first), so every line, from a bad
 * value's message to the ready line, is in the configured format.
 */
const settings = peekLogSettings();
const logger = new JsonLogger(settings.level, undefined, settings.format);

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      logger.error(`svc relay: ${err.message}`, 'Config');
      process.exit(1);
    }
    throw err;
  }
  // The application's modules, once the configuration is read.
  const { startRelayProcess } = await import('./bootstrap/start-relay');
  const { stopOnSignals } = await import('./bootstrap/graceful-shutdown');
  const { announceStart } = await import('./bootstrap/ready-line');
  const app = await startRelayProcess(config, logger);
  stopOnSignals(app, config.limits.shutdownTimeoutMs, logger);
  await announceStart(app, config, logger);
}

main().catch((err) => {
  logger.error(`svc relay failed to start: ${err?.message ?? err}`, err?.stack, 'Relay');
  process.exit(1);
});
