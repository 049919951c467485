import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import type { ExtraImports } from '../../src/app.module';
import { startRelay } from '../../src/bootstrap/start-relay';
import { Clock } from '../../src/common/clock';
import { loadConfig } from '../../src/config/config.loader';
import { RelayConfig } from '../../src/config/relay-config';
import { JsonLogger } from '../../src/logging/json-logger';
import { FileStore } from '../../src/storage/file-store';
import { startTestS3Server, TestS3Server } from './s3-server';

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
  logger: JsonLogger;
  /** The S3 server the relay stores its files in (SVC_TEST_STORAGE=s3), else null. */
  s3: TestS3Server | null;
  /** Names of the stored files in a folder of the relay's store (`builds/`, `uploads/comments/`), sorted. */
  storedFiles: (prefix: string) => Promise<string[]>;
  /** Whether the store holds `key` (`uploads/comments/<name>.png`). */
  storedFileExists: (key: string) => Promise<boolean>;
  /** Puts a file into the store behind the relay's back, `ageMs` old (as a crash between steps leaves one). */
  plantStoredFile: (key: string, content: Buffer | string, ageMs?: number) => Promise<void>;
  /** A stored file's bytes (small files only: read whole into memory). */
  readStoredFile: (key: string) => Promise<Buffer>;
  /** Removes a stored file behind the relay's back. */
  removeStoredFile: (key: string) => Promise<void>;
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
 * here and dropped by close(), so parallel jest workers and concurrent runs never share tables.
 */
export async function startTestRelay(
  env: Record<string, string> = {},
  options: TestRelayOptions = {},
): Promise<TestRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relay-test-'));
  const database = env.SVC_DATABASE_URL ? null : await createTestDatabase();
  const s3 = testStorage === 's3' && !env.SVC_STORAGE_URL ? await startTestS3Server() : null;
  const relayEnv: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_BCRYPT_COST: '4',
    SVC_LOG_LEVEL: 'info',
    // No dashboard unless a test asks for one (SVC_WEB_DIR): whether web/dist happens to be built in
    // this checkout (the browser tests build it) must not change what unknown paths answer.
    SVC_WEB_DIR: join(dataDir, 'no-dashboard'),
    ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    ...(s3 ? s3.env('relay') : {}),
    ...env,
  };
  const discard = async () => {
    await database?.drop();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const config = loadConfig(relayEnv, dataDir);
  const logger = new JsonLogger(config.logLevel, process.env.SVC_TEST_PRINT_LOGS ? (line) => process.stderr.write(line + "\n") : () => undefined);
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
    s3,
    storedFiles: async (prefix) => {
      const names: string[] = [];
      for await (const key of app.get(FileStore).list(prefix)) names.push(key.slice(prefix.length));
      return names.sort();
    },
    storedFileExists: async (key) => (await app.get(FileStore).stat(key)) !== null,
    plantStoredFile: async (key, content, ageMs = 0) => {
      const local = join(dataDir, 'tmp', `planted-${randomBytes(4).toString('hex')}`);
      writeFileSync(local, content);
      await app.get(FileStore).put(key, local);
      if (!ageMs) return;
      const past = new Date(Date.now() - ageMs);
      if (s3) await s3.backdate(`relay/${key}`, ageMs);
      else utimesSync(join(dataDir, key), past, past);
    },
    readStoredFile: async (key) => {
      const chunks: Buffer[] = [];
      for await (const chunk of await app.get(FileStore).read(key)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    removeStoredFile: (key) => app.get(FileStore).remove([key]),
    http: () => request(url),
    close: async () => {
      await app.close();
      await discard();
    },
    discard,
  };
}

/**
 * Where the test relays store files: 'data-dir', or 's3' under SVC_TEST_STORAGE=s3 (each relay gets
 * a fresh S3 server on loopback, test/support/s3-server.ts), so every suite runs on both backends.
 */
export const testStorage: 'data-dir' | 's3' = process.env.SVC_TEST_STORAGE === 's3' ? 's3' : 'data-dir';

/** The dialect the test relays run on: 'postgres' under SVC_TEST_DATABASE_URL, else 'sqlite'. */
export const testDialect: 'sqlite' | 'postgres' = process.env.SVC_TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** `describe` for suites that inspect the SQLite file itself; skipped, with its reason, on PostgreSQL. */
export function describeSqliteOnly(reason: string): jest.Describe {
  if (testDialect === 'sqlite') return describe;
  const skip = ((name: string, fn: jest.EmptyFunction) => describe.skip(`${name} [SQLite only: ${reason}]`, fn)) as jest.Describe;
  return Object.assign(skip, describe);
}

/** `it` for tests that read SQLite internals (PRAGMAs, EXPLAIN QUERY PLAN, the file); skipped on PostgreSQL. */
export const itSqliteOnly = (reason: string): jest.It => itOnlyOn('sqlite', reason);

/** `it` for races only PostgreSQL's concurrent transactions can produce (SQLite serialises every write); skipped on SQLite. */
export const itPostgresOnly = (reason: string): jest.It => itOnlyOn('postgres', reason);

/** `it` on one dialect; on the other the test is reported as skipped with the reason in its name. */
function itOnlyOn(dialect: typeof testDialect, reason: string): jest.It {
  if (testDialect === dialect) return it;
  const label = dialect === 'sqlite' ? 'SQLite only' : 'PostgreSQL only';
  const skip = ((name: string, fn?: jest.ProvidesCallback, timeout?: number) =>
    it.skip(`${name} [${label}: ${reason}]`, fn, timeout)) as jest.It;
  return Object.assign(skip, it);
}

/** Names this process's test databases: svc_test_<run>_<random> (scripts/test-postgres.sh drops a run's leftovers). */
const RUN_ID = /^[a-z0-9]+$/.test(process.env.SVC_TEST_RUN_ID ?? '') ? process.env.SVC_TEST_RUN_ID! : randomBytes(5).toString('hex');

/**
 * A fresh database on the SVC_TEST_DATABASE_URL server, or null when the tests run on SQLite. It
 * sorts with ICU en-US, as many installs do, so a locale-dependent query shows up in the tests
 * whatever the server's default (plain CREATE DATABASE on a server without ICU).
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const adminUrl = process.env.SVC_TEST_DATABASE_URL;
  if (!adminUrl) return null;
  const name = `svc_test_${RUN_ID}_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, async (admin) => {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    } catch {
      await admin.query(`CREATE DATABASE ${name}`);
    }
  });
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
