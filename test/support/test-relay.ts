import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
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
  /** The SVC_* variables the relay was configured with (to start the same relay again). */
  env: Record<string, string>;
  clock: Clock;
  logger: RelayLogger;
  /** supertest bound to the running relay (paths are relative to the root, e.g. /api/v1/auth/status). */
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
  /** Removes the data dir (and the PostgreSQL test database) only: for tests that closed the app themselves. */
  discard: () => Promise<void>;
}

export interface TestRelayOptions {
  /** Extra Nest modules mounted in the relay (e.g. ProbeModule: routes per access requirement). */
  imports?: ExtraImports;
}

/**
 * Boots the real relay on a fresh temp data dir (real SQLite file), listening on 127.0.0.1 with a
 * random port. `env` overrides SVC_* variables, exactly as an operator would set them.
 *
 * With SVC_TEST_DATABASE_URL set (an admin URL of a PostgreSQL server, see
 * scripts/test-postgres.sh), each relay gets a database of its own on that server instead, created
 * here and dropped by close(), so parallel jest workers never share tables.
 */
export async function startTestRelay(
  env: Record<string, string> = {},
  options: TestRelayOptions = {},
): Promise<TestRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relay-test-'));
  const database = env.SVC_DATABASE_URL ? null : await createTestDatabase();
  const relayEnv: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_BCRYPT_COST: '4',
    SVC_LOG_LEVEL: 'info',
    ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    ...env,
  };
  const discard = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const config = loadConfig(relayEnv, dataDir);
  const logger = new RelayLogger(config.logLevel, () => undefined);
  let app: NestExpressApplication;
  try {
    app = await startRelay(config, logger, options.imports);
  } catch (err) {
    await discard();
    throw err;
  }
  const port = (app.getHttpServer().address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    config,
    url,
    port,
    dataDir,
    env: relayEnv,
    clock: app.get(Clock),
    logger,
    http: () => request(url),
    close: async () => {
      await app.close();
      await discard();
    },
    discard,
  };
}

/** The dialect the test relays run on: 'postgres' under SVC_TEST_DATABASE_URL, else 'sqlite'. */
export const testDialect: 'sqlite' | 'postgres' = process.env.SVC_TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** `describe` for suites that inspect the SQLite file itself; skipped, with its reason, on PostgreSQL. */
export function describeSqliteOnly(reason: string): jest.Describe {
  if (testDialect === 'sqlite') return describe;
  const skip = ((name: string, fn: jest.EmptyFunction) => describe.skip(`${name} [SQLite only: ${reason}]`, fn)) as jest.Describe;
  return Object.assign(skip, describe);
}

/** `it` for tests that read SQLite internals (PRAGMAs, EXPLAIN QUERY PLAN, the file); skipped on PostgreSQL. */
export function itSqliteOnly(reason: string): jest.It {
  if (testDialect === 'sqlite') return it;
  const skip = ((name: string, fn?: jest.ProvidesCallback, timeout?: number) =>
    it.skip(`${name} [SQLite only: ${reason}]`, fn, timeout)) as jest.It;
  return Object.assign(skip, it);
}

/** A fresh database on the SVC_TEST_DATABASE_URL server, or null when the tests run on SQLite. */
async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const adminUrl = process.env.SVC_TEST_DATABASE_URL;
  if (!adminUrl) return null;
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdmin(adminUrl: string, body: (admin: Client) => Promise<unknown>): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await body(admin);
  } finally {
    await admin.end();
  }
}
