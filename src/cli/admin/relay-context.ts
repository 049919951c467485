import type { INestApplicationContext } from '@nestjs/common';
import type { RelayConfig } from '../../config/relay-config';
import { JsonLogger } from '../../logging/json-logger';

/**
 * The relay's own modules on this machine's data dir, without an HTTP server: operator commands
 * call the same services the endpoints use (one code path). Safe while the relay runs (SQLite WAL
 * with a busy timeout; no scheduler and no start-up sweeps, see `AppModule.forOperator`). Only warnings and errors are logged, to stderr.
 */
export async function withRelayContext<T>(config: RelayConfig, use: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const [{ NestFactory }, { AppModule }] = await Promise.all([import('@nestjs/core'), import('../../app.module')]);
  const logger = new JsonLogger('warn', (line) => process.stderr.write(`${line}\n`));
  const app = await NestFactory.createApplicationContext(AppModule.forOperator(config, logger), { logger, abortOnError: false });
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}
