import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { ExtraImports } from '../../src/app.module';
import { startRelay } from '../../src/bootstrap/start-relay';
import { Clock } from '../../src/common/clock';
import { loadConfig } from '../../src/config/config.loader';
import { RelayConfig } from '../../src/config/relay-config';
import { RelayLogger } from '../../src/logging/relay-logger';

export interface TestRelay {
  app: NestExpressApplication;
  config: RelayConfig;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  dataDir: string;
  clock: Clock;
  logger: RelayLogger;
  /** supertest bound to the running relay (paths are relative to the root, e.g. /api/v1/auth/status). */
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

export interface TestRelayOptions {
  /** Extra Nest modules mounted in the relay (e.g. ProbeModule: routes per access requirement). */
  imports?: ExtraImports;
}

/**
 * Boots the real relay on a fresh temp data dir (real SQLite file), listening on 127.0.0.1 with a
 * random port. `env` overrides SVC_* variables, exactly as an operator would set them.
 */
export async function startTestRelay(
  env: Record<string, string> = {},
  options: TestRelayOptions = {},
): Promise<TestRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relay-test-'));
  const config = loadConfig(
    {
      SVC_DATA_DIR: dataDir,
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_BCRYPT_COST: '4',
      SVC_LOG_LEVEL: 'info',
      ...env,
    },
    dataDir,
  );
  const logger = new RelayLogger(config.logLevel, () => undefined);
  const app = await startRelay(config, logger, options.imports);
  const port = (app.getHttpServer().address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    config,
    url,
    port,
    dataDir,
    clock: app.get(Clock),
    logger,
    http: () => request(url),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
