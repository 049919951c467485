import type { ModuleMetadata, Type } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { CommonModule } from '../../src/common/common.module';
import { loadConfig } from '../../src/config/config.loader';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { SqlExecutor } from '../../src/database/sql-executor';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { JsonLogger } from '../../src/logging/json-logger';
import { LoggingModule } from '../../src/logging/logging.module';
import { createTestDatabase, testDialect } from '../support/test-relay';

/**
 * Medium tests (issue 41 item 5): a module's services and repositories on a real database, without
 * HTTP. Between the unit specs (src/, no database) and the end-to-end suites (the whole relay over
 * HTTP): cheap enough to pin every statement of a repository on both dialects.
 *
 * Each harness gets a fresh database as the test relays do (test/support/test-relay.ts): a SQLite
 * file in a temp dir, or under SVC_TEST_DATABASE_URL a database of its own on that PostgreSQL
 * server, dropped by close(). The migrations run, exactly as at the relay's start-up.
 */
export interface MediumDatabase {
  module: TestingModule;
  dataSource: DataSource;
  /** The relay's executor: statements outside any transaction (or in the caller's open one). */
  sql: SqlExecutor;
  transactions: TransactionRunner;
  clock: Clock;
  dialect: typeof testDialect;
  get<T>(type: Type<T>): T;
  /** Rows of a plain statement in the dialect's own SQL (for asserting what a repository wrote). */
  rows<R = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export interface MediumDatabaseOptions {
  /** The module(s) under test (their own imports come with them). */
  imports?: ModuleMetadata['imports'];
  /** Providers declared here rather than by a module: a repository on its own, with `entities`. */
  providers?: ModuleMetadata['providers'];
  /** Entities to register when `providers` are given without their module (TypeOrmModule.forFeature). */
  entities?: Function[];
  /** SVC_* variables, as an operator would set them. */
  env?: Record<string, string>;
}

/** Boots the database layer (config, logger, clock, events, DatabaseModule) and the module under test. */
export async function mediumDatabase(options: MediumDatabaseOptions = {}): Promise<MediumDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-medium-'));
  const database = await createTestDatabase();
  const discard = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_BCRYPT_COST: '4', ...(database ? { SVC_DATABASE_URL: database.url } : {}), ...options.env }, dataDir);
  const logger = new JsonLogger(config.logLevel, () => undefined);
  let module: TestingModule;
  try {
    module = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        CommonModule,
        EventEmitterModule.forRoot(),
        DatabaseModule,
        ...(options.entities?.length ? [TypeOrmModule.forFeature(options.entities)] : []),
        ...(options.imports ?? []),
      ],
      providers: options.providers ?? [],
    }).compile();
    await module.init();
  } catch (err) {
    await discard();
    throw err;
  }
  const dataSource = module.get<DataSource>(getDataSourceToken());
  return {
    module,
    dataSource,
    sql: module.get(SqlExecutor),
    transactions: module.get(TransactionRunner),
    clock: module.get(Clock, { strict: false }),
    dialect: testDialect,
    get: (type) => module.get(type, { strict: false }),
    rows: (sql, parameters = []) => module.get(SqlExecutor).query(sql, parameters),
    close: async () => {
      await module.close();
      await discard();
    },
  };
}

/** `mediumDatabase()` for a describe block: opened before its tests, closed after them. */
export function useMediumDatabase(options: MediumDatabaseOptions = {}): () => MediumDatabase {
  let db: MediumDatabase | undefined;
  beforeAll(async () => {
    db = await mediumDatabase(options);
  });
  afterAll(async () => {
    await db?.close();
  });
  return () => {
    if (!db) throw new Error('the medium database is not open (used outside a test?)');
    return db;
  };
}
