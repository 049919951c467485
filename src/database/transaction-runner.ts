import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';
import { postgresPool } from '../platform/typeorm/raw-connection';
import { withDatabaseLock } from './database-lock';
import { SqliteConnectionGate } from '../platform/typeorm/sqlite-connection-gate';

/** One open transaction as the code inside it sees it: its manager and what runs after the commit. */
interface TransactionScope {
  manager: EntityManager;
  afterCommit: (() => Promise<void> | void)[];
  /** False once the transaction has ended: work it left running (a listener) starts its own. */
  open: boolean;
}

/** The transaction the current async call chain runs in; shared by every runner of the process. */
const currentScope = new AsyncLocalStorage<TransactionScope>();

/** run() calls begun and not yet returned, process-wide (joined ones included). */
let runsInFlight = 0;

/**
 * Once no run() is in flight, the context is switched off until the next run(): while an
 * AsyncLocalStorage is on, Node runs a hook for every promise the process creates (~95 ns each
 * here), and a relay that had written once paid it on every request after (GET /builds: +10 % of
 * its CPU, docs/decisions.md#item-40). Nothing is lost: a store still reachable then belongs to a scope
 * that has ended (`open` false, which every reader takes as no transaction). The SQLite gate does
 * the same with its own.
 */
function runEnded(): void {
  if (--runsInFlight === 0) currentScope.disable();
}

/**
 * The one way to run a multi-statement write (docs/architecture.md, "Transactions").
 *
 * On SQLite TypeORM sends every statement of every request over ONE connection (one query
 * runner). Left alone, two transactions started by two requests nest as savepoints of each
 * other, and a statement of a third request issued while one is open becomes part of it and is
 * rolled back with it. The runner hands its transactions to the data source's connection gate
 * (src/platform/typeorm/, installed with the data source), which gives the connection to one
 * transaction at a time (FIFO); statements from outside the running transaction wait at the
 * connection until it ends. On PostgreSQL each transaction has a pooled connection of its own, so
 * `run()` is a plain transaction.
 *
 * Modules never hand an EntityManager to each other: a `run()` called while another is open in
 * the same async call chain (a module calling another module's service inside its transaction)
 * joins it as a savepoint of the same connection, and `afterCommit()` defers work (events, file
 * removal) until the outermost transaction has committed.
 */
@Injectable()
export class TransactionRunner {
  private readonly gate: SqliteConnectionGate | null;

  /** Throws on SQLite when the data source was built without its gate (a start-up error, not a lost transaction). */
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.gate = SqliteConnectionGate.of(dataSource);
  }

  /** Runs `work` holding the database-wide lock `name` (database-lock.ts): instances sharing PostgreSQL take turns. */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    return withDatabaseLock(this.dataSource, name, work);
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
    return (await postgresPool(this.dataSource).query({ text: sql, values: parameters, rowMode: 'array' })).rows;
  }

  /** Whether the caller's async call chain is inside an open transaction (run() would join it). */
  inTransaction(): boolean {
    return currentScope.getStore()?.open === true;
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
