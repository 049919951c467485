import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database as SqliteDatabase, Statement as SqliteStatement } from 'better-sqlite3';
import type { Pool } from 'pg';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { bindIntegerParameters } from './sqlite-integer-parameters';

/** Prepared statements kept for selectArrays() on SQLite (the list's pages differ only in their number of ids, 1-100). */
const MAX_ARRAY_STATEMENTS = 500;

/** Owner of the SQLite connection while TypeORM runs a transaction it started on its own (save()). */
const IMPLICIT = Symbol('implicit transaction');

/** One open transaction as the code inside it sees it: its manager and what runs after the commit. */
interface TransactionScope {
  manager: EntityManager;
  afterCommit: (() => Promise<void> | void)[];
  /** False once the transaction has ended: work it left running (a listener) starts its own. */
  open: boolean;
}

/** The transaction the current async call chain runs in; shared by every runner of the process. */
const currentScope = new AsyncLocalStorage<TransactionScope>();

/** Which transaction owns the SQLite connection, as the current async call chain sees it (every gate's tokens are unique). */
const gateOwner = new AsyncLocalStorage<symbol>();

/** run() calls begun and not yet returned, process-wide (joined ones included). */
let runsInFlight = 0;

/**
 * Once no run() is in flight, both contexts are switched off until the next run(): while an
 * AsyncLocalStorage is on, Node runs a hook for every promise the process creates (~95 ns each
 * here), and a relay that had written once paid it on every request after (GET /builds: +10 % of
 * its CPU, docs/decisions.md#item-40). Nothing is lost: a store still reachable then belongs to a scope
 * that has ended (`open` false, which every reader takes as no transaction), and a gate token only
 * matters while its transaction owns the connection.
 */
function runEnded(): void {
  if (--runsInFlight > 0) return;
  currentScope.disable();
  gateOwner.disable();
}

/**
 * The one way to run a multi-statement write (docs/architecture.md, "Transactions").
 *
 * On SQLite TypeORM sends every statement of every request over ONE connection (one query
 * runner). Left alone, two transactions started by two requests nest as savepoints of each
 * other, and a statement of a third request issued while one is open becomes part of it and is
 * rolled back with it. The runner hands the connection to one transaction at a time (FIFO);
 * statements from outside the running transaction wait at the connection until it ends. On
 * PostgreSQL each transaction has a pooled connection of its own, so `run()` is a plain transaction.
 *
 * Modules never hand an EntityManager to each other: a `run()` called while another is open in
 * the same async call chain (a module calling another module's service inside its transaction)
 * joins it as a savepoint of the same connection, and `afterCommit()` defers work (events, file
 * removal) until the outermost transaction has committed.
 */
@Injectable()
export class TransactionRunner {
  private readonly gate: SqliteConnectionGate | null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.gate = SqliteConnectionGate.for(dataSource);
  }

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    runsInFlight++;
    try {
      return await this.runCounted(work);
    } finally {
      runEnded();
    }
  }

  private async runCounted<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const outer = currentScope.getStore();
    if (outer?.open) {
      // Joined: a savepoint of the open transaction; its after-commit work waits for the outer commit.
      const afterCommit: TransactionScope['afterCommit'] = [];
      const result = await outer.manager.transaction((manager) => this.inScope({ manager, afterCommit, open: true }, work));
      outer.afterCommit.push(...afterCommit);
      return result;
    }
    const afterCommit: TransactionScope['afterCommit'] = [];
    const scoped = (manager: EntityManager) => this.inScope({ manager, afterCommit, open: true }, work);
    const result = await (this.gate ? this.gate.run(scoped) : this.dataSource.transaction(scoped));
    for (const task of afterCommit) await task();
    return result;
  }

  /**
   * Like run(), but inside an open transaction the work runs in it as it is, without a savepoint:
   * for work that only reads and writes alongside its caller and whose failure fails the caller's
   * transaction anyway (nothing to roll back on its own). A savepoint is two more statements and
   * one more trip through TypeORM's transaction machinery; the upload's app resolution paid it on
   * every build.
   */
  join<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const outer = currentScope.getStore();
    return outer?.open ? work(outer.manager) : this.run(work);
  }

  private async inScope<T>(scope: TransactionScope, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await currentScope.run(scope, () => work(scope.manager));
    } finally {
      scope.open = false;
    }
  }

  /**
   * A SELECT's rows as arrays of their column values, in the statement's column order: for reads of
   * many rows, where the drivers' row objects (a property per column per row) cost more than the
   * statement itself (a 100-build page of GET /builds on SQLite: 470 µs as objects, 260 µs as
   * arrays). Same visibility as manager.query(): in the caller's open transaction when there is
   * one, else on SQLite after whichever transaction holds the connection has ended.
   */
  async selectArrays(sql: string, parameters: unknown[]): Promise<unknown[][]> {
    const scope = currentScope.getStore();
    if (scope?.open) return ((await scope.manager.query(sql, parameters)) as object[]).map((row) => Object.values(row));
    if (this.gate) return this.gate.selectArrays(sql, parameters);
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    return (await pool.query({ text: sql, values: parameters, rowMode: 'array' })).rows;
  }

  /**
   * Runs `task` once the transaction the caller is in has committed (at once outside a
   * transaction); dropped when it rolls back. The outermost `run()` awaits it before it returns.
   */
  async afterCommit(task: () => Promise<void> | void): Promise<void> {
    const scope = currentScope.getStore();
    if (scope?.open) scope.afterCommit.push(task);
    else await task();
  }
}

/** Serialises use of the shared SQLite query runner; installed once per data source. */
class SqliteConnectionGate {
  private static readonly gates = new WeakMap<DataSource, SqliteConnectionGate>();
  private owner: symbol | null = null;
  private released: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** selectArrays()'s statements, prepared once each in array mode, by SQL text. */
  private readonly arrayStatements = new Map<string, SqliteStatement>();

  static for(dataSource: DataSource): SqliteConnectionGate | null {
    const type = dataSource.options.type;
    if (type !== 'better-sqlite3' && type !== 'sqlite') return null;
    let gate = this.gates.get(dataSource);
    if (!gate) this.gates.set(dataSource, (gate = new SqliteConnectionGate(dataSource)));
    return gate;
  }

  private constructor(private readonly dataSource: DataSource) {
    // The SQLite driver returns the same query runner to everyone: wrap that one.
    this.wrap(dataSource.driver.createQueryRunner('master'));
    bindIntegerParameters(dataSource);
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      const token = Symbol('transaction');
      await this.acquire(token);
      try {
        return await gateOwner.run(token, () => this.dataSource.transaction(work));
      } finally {
        this.free();
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** selectArrays() outside any transaction: waits, as every statement does, until none holds the connection. */
  async selectArrays(sql: string, parameters: unknown[]): Promise<unknown[][]> {
    while (this.owner !== null) await this.released;
    let statement = this.arrayStatements.get(sql);
    if (!statement) {
      const connection = (this.dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
      statement = connection.prepare(sql).raw(true);
      this.arrayStatements.set(sql, statement);
      // First in, first out, as TypeORM's own statement cache.
      if (this.arrayStatements.size > MAX_ARRAY_STATEMENTS) this.arrayStatements.delete(this.arrayStatements.keys().next().value!);
    }
    return statement.all(...parameters) as unknown[][];
  }

  private wrap(runner: QueryRunner): void {
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    const start = runner.startTransaction.bind(runner);
    const commit = runner.commitTransaction.bind(runner);
    const rollback = runner.rollbackTransaction.bind(runner);
    const inOwnTransaction = () => this.owner !== null && (this.owner === IMPLICIT || gateOwner.getStore() === this.owner);

    (runner as { query: unknown }).query = async (...args: unknown[]) => {
      while (this.owner !== null && !inOwnTransaction()) await this.released;
      return query(...args);
    };
    // A transaction TypeORM opens by itself (save() outside run()) also takes the connection.
    runner.startTransaction = async (isolation) => {
      if (!inOwnTransaction()) await this.acquire(IMPLICIT);
      return start(isolation);
    };
    const ending = (end: () => Promise<void>) => async () => {
      try {
        await end();
      } finally {
        if (this.owner === IMPLICIT && !runner.isTransactionActive) this.free();
      }
    };
    runner.commitTransaction = ending(commit);
    runner.rollbackTransaction = ending(rollback);
  }

  private async acquire(owner: symbol): Promise<void> {
    while (this.owner !== null) await this.released;
    this.owner = owner;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  private free(): void {
    this.owner = null;
    this.release();
  }
}
