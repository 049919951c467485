import 'reflect-metadata';
import { stopOnSignals } from './bootstrap/graceful-shutdown';
import { readyLine } from './bootstrap/ready-line';
import { startRelayProcess } from './bootstrap/start-relay';
import { ConfigError } from './config/config-error';
import { loadConfig } from './config/config.loader';
import { JsonLogger } from './logging/json-logger';

/** `npm start`: the relay on the configuration from svc.config.json and SVC_* variables. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc relay: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = new JsonLogger(config.logLevel);
  const app = await startRelayProcess(config, logger);
  stopOnSignals(app, config.limits.shutdownTimeoutMs, logger);
  const scheme = config.tlsCert ? 'https' : 'http';
  const port = (app.getHttpServer().address() as { port: number }).port;
  process.stdout.write(`svc relay listening on ${scheme}://${config.host}:${port} (data: ${config.dataDir})\n`);
  process.stdout.write(`${await readyLine(app, config, port)}\n`);
}

main().catch((err) => {
  process.stderr.write(`svc relay failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
