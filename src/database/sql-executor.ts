import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { postgresPool, sqliteDatabase } from '../platform/typeorm/raw-connection';
import type { Connection, Session } from './executor/connection';
import { PostgresConnection } from './executor/postgres-connection';
import { SqliteConnection } from './executor/sqlite-connection';
import type { Dialect, Sql } from './sql';
import { openTransaction } from './transaction-scope';

/**
 * The one way a statement reaches the database (docs/database.md): TypeORM declares the schema,
 * opens the connection and runs the migrations; every statement after that runs here, on the
 * driver's connection (better-sqlite3's Database, pg's Pool) that raw-connection.ts reads.
 * A statement runs in the caller's open transaction when its async call chain has one
 * (TransactionRunner.run()), else alone: on SQLite after whichever transaction owns the
 * connection has ended, on PostgreSQL on any free pooled connection.
 */
@Injectable()
export class SqlExecutor implements Sql {
  readonly dialect: Dialect;
  private readonly connection: Connection;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.connection =
      dataSource.options.type === 'postgres' ? new PostgresConnection(() => postgresPool(dataSource)) : new SqliteConnection(() => sqliteDatabase(dataSource));
    this.dialect = this.connection.dialect;
  }

  query<R = Record<string, unknown>>(sql: string, parameters: readonly unknown[] = []): Promise<R[]> {
    const transaction = openTransaction();
    return (transaction ? transaction.query(sql, parameters) : this.connection.query(sql, parameters, false)) as Promise<R[]>;
  }

  queryArrays(sql: string, parameters: readonly unknown[] = []): Promise<unknown[][]> {
    const transaction = openTransaction();
    return (transaction ? transaction.queryArrays(sql, parameters) : this.connection.query(sql, parameters, true)) as Promise<unknown[][]>;
  }

  /**
   * `work`'s statements, one after another, on one pooled connection taken once (PostgreSQL; SQLite
   * has one), outside any transaction: for a request's few reads in a row whose each checkout would
   * wait its turn for a connection under load (a sign-in's). In the caller's open transaction, on it.
   */
  async onOneConnection<T>(work: (on: Sql) => Promise<T>): Promise<T> {
    const transaction = openTransaction();
    if (transaction) return work(transaction);
    const held = await this.connection.hold();
    try {
      return await work({
        dialect: this.dialect,
        query: <R>(sql: string, parameters: readonly unknown[] = []) => held.query(sql, parameters, false) as Promise<R[]>,
        queryArrays: (sql: string, parameters: readonly unknown[] = []) => held.query(sql, parameters, true) as Promise<unknown[][]>,
      });
    } finally {
      held.release();
    }
  }

  /** A connection of its own from BEGIN until the session ends (TransactionRunner's; SQLite: in turn). */
  begin(): Promise<Session> {
    return this.connection.begin();
  }
}
