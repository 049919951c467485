import 'reflect-metadata';
import { startRelay } from './bootstrap/start-relay';
import { ConfigError } from './config/config-error';
import { loadConfig } from './config/config.loader';

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
  const app = await startRelay(config);
  const scheme = config.tlsCert ? 'https' : 'http';
  const port = (app.getHttpServer().address() as { port: number }).port;
  process.stdout.write(`svc relay listening on ${scheme}://${config.host}:${port} (data: ${config.dataDir})\n`);
}

main().catch((err) => {
  process.stderr.write(`svc relay failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
