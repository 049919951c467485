import { Injectable } from '@nestjs/common';
import { withDatabaseLock } from './database-lock';
import type { Sql } from './sql';
import { SqlExecutor } from './sql-executor';
import { currentScope, Transaction, TransactionScope } from './transaction-scope';

/** run() calls begun and not yet returned, process-wide (joined ones included). */
let runsInFlight = 0;

/**
 * Once no run() is in flight, the context is switched off until the next run(): while an
 * AsyncLocalStorage is on, Node runs a hook for every promise the process creates (~95 ns each
 * here), and a relay that had written once paid it on every request after (GET /builds: +10 % of
 * its CPU, docs/decisions.md#item-40). Nothing is lost: a store still reachable then belongs to a scope
 * that has ended (`open` false, which every reader takes as no transaction).
 */
function runEnded(): void {
  if (--runsInFlight === 0) currentScope.disable();
}

type AfterCommitTask = () => Promise<void> | void;

/** The transaction runExplicit() hands its work: statements, and work for after the commit. */
export interface ExplicitTransaction extends Sql {
  /** Runs `task` once the transaction has committed (joined: the caller's outermost one); dropped on rollback. */
  afterCommit(task: AfterCommitTask): void;
}

/**
 * The one way to run a multi-statement write (docs/architecture.md, "Transactions").
 *
 * A transaction is a session of the SqlExecutor's connection: on SQLite the one connection, which
 * transactions take in turn (FIFO) while statements from outside wait; on PostgreSQL a pooled
 * connection of its own. Modules never hand a transaction to each other: a `run()` called while
 * another is open in the same async call chain (a module calling another module's service inside
 * its transaction) joins it as a savepoint, and `afterCommit()` defers work (events, file removal)
 * until the outermost transaction has committed.
 */
@Injectable()
export class TransactionRunner {
  constructor(private readonly executor: SqlExecutor) {}

  /** Runs `work` holding the database-wide lock `name` (database-lock.ts): instances sharing PostgreSQL take turns. */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    return withDatabaseLock(this.executor, name, work);
  }

  async run<T>(work: (transaction: Sql) => Promise<T>): Promise<T> {
    runsInFlight++;
    try {
      return await this.runCounted(work);
    } finally {
      runEnded();
    }
  }

  private async runCounted<T>(work: (transaction: Sql) => Promise<T>): Promise<T> {
    const outer = currentScope.getStore();
    if (outer?.open) return this.savepoint(outer, work);
    return this.transaction((transaction, afterCommit) => this.inScope({ transaction, afterCommit, open: true }, work));
  }

  /**
   * A transaction for work that hands `tx` to every statement and every call it makes (a repository's
   * or a service's `tx` parameter), and so needs no scope: the process's AsyncLocalStorage stays off
   * while it runs. On, Node calls a hook for every promise of every request, and on the PostgreSQL
   * soak some run() was in flight all the time, so every request paid it (docs/decisions.md#item-40,
   * #issue-42-explicit-transactions). Work in it must never reach the SqlExecutor or run(): on SQLite
   * such a statement waits for this very transaction to end. Inside a caller's open run() it joins
   * that transaction as a savepoint, as run() does.
   */
  async runExplicit<T>(work: (transaction: ExplicitTransaction) => Promise<T>): Promise<T> {
    if (currentScope.getStore()?.open) return this.run((transaction) => work(explicit(transaction, (task) => void this.afterCommit(task))));
    return this.transaction((transaction, afterCommit) => work(explicit(transaction, (task) => afterCommit.push(task))));
  }

  /**
   * One transaction of its own, run() and runExplicit() alike: begun, committed when `work` resolves
   * and rolled back when it throws; the tasks `work` left in `afterCommit` run once it has committed.
   */
  private async transaction<T>(work: (transaction: Transaction, afterCommit: AfterCommitTask[]) => Promise<T>): Promise<T> {
    const session = await this.executor.begin();
    const afterCommit: AfterCommitTask[] = [];
    let result: T;
    try {
      result = await work(new Transaction(this.executor.dialect, session), afterCommit);
    } catch (error) {
      // The work's failure is the one to report, not a failed ROLLBACK's (its connection is dropped).
      await session.end(false).catch(() => undefined);
      throw error;
    }
    await session.end(true);
    for (const task of afterCommit) await task();
    return result;
  }

  /** A run() inside an open transaction: a savepoint of it; its after-commit work waits for the outer commit. */
  private async savepoint<T>(outer: TransactionScope, work: (transaction: Sql) => Promise<T>): Promise<T> {
    const { transaction } = outer;
    const name = transaction.nextSavepoint();
    const scope: TransactionScope = { ...outer, afterCommit: [], open: true };
    await transaction.query(`SAVEPOINT ${name}`);
    let result: T;
    try {
      result = await this.inScope(scope, work);
    } catch (error) {
      await transaction.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
    await transaction.query(`RELEASE SAVEPOINT ${name}`);
    outer.afterCommit.push(...scope.afterCommit);
    return result;
  }

  /**
   * Like run(), but inside an open transaction the work runs in it as it is, without a savepoint:
   * for work that only reads and writes alongside its caller and whose failure fails the caller's
   * transaction anyway (nothing to roll back on its own). A savepoint is two more statements; the
   * upload's app resolution paid them on every build.
   */
  join<T>(work: (transaction: Sql) => Promise<T>): Promise<T> {
    const outer = currentScope.getStore();
    return outer?.open ? work(outer.transaction) : this.run(work);
  }

  private async inScope<T>(scope: TransactionScope, work: (transaction: Sql) => Promise<T>): Promise<T> {
    try {
      return await currentScope.run(scope, () => work(scope.transaction));
    } finally {
      scope.open = false;
    }
  }

  /** Statements in a row on one connection taken once, no transaction (SqlExecutor.onOneConnection). */
  onOneConnection<T>(work: (on: Sql) => Promise<T>): Promise<T> {
    return this.executor.onOneConnection(work);
  }

  /**
   * A SELECT's rows as arrays of their column values, in the statement's column order: for reads of
   * many rows, where the drivers' row objects (a property per column per row) cost more than the
   * statement itself (a 100-build page of GET /builds on SQLite: 470 µs as objects, 260 µs as
   * arrays). In the caller's open transaction when there is one.
   */
  selectArrays(sql: string, parameters: unknown[]): Promise<unknown[][]> {
    return this.executor.queryArrays(sql, parameters);
  }

  /** Whether the caller's async call chain is inside an open transaction (run() would join it). */
  inTransaction(): boolean {
    return currentScope.getStore()?.open === true;
  }

  /**
   * Runs `task` once the transaction the caller is in has committed (at once outside a
   * transaction); dropped when it rolls back. The outermost `run()` awaits it before it returns.
   */
  async afterCommit(task: AfterCommitTask): Promise<void> {
    const scope = currentScope.getStore();
    if (scope?.open) scope.afterCommit.push(task);
    else await task();
  }
}

function explicit(transaction: Sql, afterCommit: (task: AfterCommitTask) => void): ExplicitTransaction {
  return {
    dialect: transaction.dialect,
    query: (sql, parameters) => transaction.query(sql, parameters),
    queryArrays: (sql, parameters) => transaction.queryArrays(sql, parameters),
    afterCommit,
  };
}
