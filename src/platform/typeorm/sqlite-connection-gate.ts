import { AsyncLocalStorage } from 'node:async_hooks';
import type { Statement as SqliteStatement } from 'better-sqlite3';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { sqliteDatabase } from './raw-connection';

/** Prepared statements kept for selectArrays() (the list's pages differ only in their number of ids, 1-100). */
const MAX_ARRAY_STATEMENTS = 500;

/** Owner of the connection while TypeORM runs a transaction it started on its own (save()). */
const IMPLICIT = Symbol('implicit transaction');

/** Which transaction owns the connection, as the current async call chain sees it (every gate's tokens are unique). */
const gateOwner = new AsyncLocalStorage<symbol>();

/** Gate run() calls begun and not yet settled, process-wide. */
let runsInFlight = 0;

/**
 * Switched off once no gate run() is in flight, until the next: while an AsyncLocalStorage is on,
 * Node runs a hook for every promise the process creates (docs/decisions.md#item-40). A token only
 * matters while its transaction owns the connection, which is inside a run().
 */
function runEnded(): void {
  if (--runsInFlight === 0) gateOwner.disable();
}

const gates = new WeakMap<DataSource, SqliteConnectionGate>();

/** What the gate and the integer binding are for: TypeORM's SQLite drivers, one shared connection each. */
export const isSqlite = (dataSource: DataSource) => dataSource.options.type === 'better-sqlite3' || dataSource.options.type === 'sqlite';

/**
 * Serialises use of TypeORM's one shared SQLite query runner (docs/architecture.md "Transactions"):
 * one transaction owns the connection at a time (FIFO), and statements from outside it wait until
 * it ends. Installed on the data source by the 'data-source' phase, before the migrations run.
 */
export class SqliteConnectionGate {
  private owner: symbol | null = null;
  private released: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** selectArrays()'s statements, prepared once each in array mode, by SQL text. */
  private readonly arrayStatements = new Map<string, SqliteStatement>();

  /** The piece's install(): a gate for a SQLite data source, nothing for another. */
  static install(dataSource: DataSource): void {
    if (isSqlite(dataSource) && !gates.has(dataSource)) gates.set(dataSource, new SqliteConnectionGate(dataSource));
  }

  /** The gate of a SQLite data source (null on another database); throws when it was never installed. */
  static of(dataSource: DataSource): SqliteConnectionGate | null {
    if (!isSqlite(dataSource)) return null;
    const gate = gates.get(dataSource);
    if (!gate) {
      throw new Error(
        "The SQLite connection gate is not installed on this data source: build it through installPlatform('data-source', dataSource) " +
          "(DatabaseModule's dataSourceFactory) before a TransactionRunner uses it, or concurrent transactions share the one connection",
      );
    }
    return gate;
  }

  private constructor(private readonly dataSource: DataSource) {
    // The SQLite driver returns the same query runner to everyone: wrap that one.
    this.wrap(dataSource.driver.createQueryRunner('master'));
  }

  /** A transaction that owns the connection from its first statement to its commit or rollback. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    runsInFlight++;
    try {
      return await this.inTurn(work);
    } finally {
      runEnded();
    }
  }

  private inTurn<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
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

  /** A SELECT's rows as arrays, outside any transaction: waits, as every statement does, until none holds the connection. */
  async selectArrays(sql: string, parameters: unknown[]): Promise<unknown[][]> {
    while (this.owner !== null) await this.released;
    let statement = this.arrayStatements.get(sql);
    if (!statement) {
      statement = sqliteDatabase(this.dataSource).prepare(sql).raw(true);
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
