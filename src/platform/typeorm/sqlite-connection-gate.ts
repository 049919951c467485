import { AsyncLocalStorage } from 'node:async_hooks';
import type { Statement as SqliteStatement } from 'better-sqlite3';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { packageFile } from '../packages';
import { sqliteDatabase } from './raw-connection';

/** Prepared statements kept for selectArrays() (the list's pages differ only in their number of ids, 1-100). */
const MAX_ARRAY_STATEMENTS = 500;

/** The description of the token of a transaction TypeORM opens by itself (save() outside run()). */
const IMPLICIT = 'implicit transaction';

/** Which transaction owns the connection, as the current async call chain sees it (every gate's tokens are unique). */
const gateOwner = new AsyncLocalStorage<symbol>();

/** Gate run() calls and TypeORM persist steps outside them, begun and not yet settled, process-wide. */
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

type PersistExecutor = { connection: DataSource; execute(): Promise<void> };

/**
 * TypeORM's persist step (save/remove/softRemove/recover; its execute() opens a transaction when none
 * is active) gets a token of its own when it runs outside its connection's owning transaction, as
 * run()'s work does: the implicit transaction it may open is then owned by it alone, and two saves
 * started in one callback take turns instead of sharing one BEGIN (docs/decisions.md#issue-27-gate).
 * Process-wide, once; a data source without a gate is left alone.
 */
let persistStepsTokened = false;
function tokenPersistSteps(): void {
  if (persistStepsTokened) return;
  persistStepsTokened = true;
  const { EntityPersistExecutor } = require(packageFile('typeorm', 'persistence/EntityPersistExecutor.js')) as { EntityPersistExecutor: { prototype: PersistExecutor } };
  const execute = EntityPersistExecutor.prototype.execute;
  EntityPersistExecutor.prototype.execute = function (this: PersistExecutor) {
    const gate = gates.get(this.connection);
    if (!gate || gate.ownsCurrentChain()) return execute.call(this);
    runsInFlight++;
    return gateOwner.run(Symbol(IMPLICIT), () => execute.call(this)).finally(runEnded);
  };
}

/** What the gate and the integer binding are for: TypeORM's SQLite drivers, one shared connection each. */
export const isSqlite = (dataSource: DataSource) => dataSource.options.type === 'better-sqlite3' || dataSource.options.type === 'sqlite';

/**
 * Serialises use of TypeORM's one shared SQLite query runner (docs/architecture.md "Transactions"):
 * one transaction owns the connection at a time (FIFO), and statements from outside it wait until
 * it ends. Installed on the data source by the 'data-source' phase, before the migrations run.
 */
export class SqliteConnectionGate {
  private owner: symbol | null = null;
  /** The owner is a transaction TypeORM opened by itself, ended by its commit or rollback. */
  private ownerImplicit = false;
  /** ...and it counts in runsInFlight (a bare transaction() outside run(), given a token at its start). */
  private ownerCounted = false;
  private released: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** selectArrays()'s statements, prepared once each in array mode, by SQL text. */
  private readonly arrayStatements = new Map<string, SqliteStatement>();

  /** The piece's install(): a gate for a SQLite data source, nothing for another. */
  static install(dataSource: DataSource): void {
    if (isSqlite(dataSource) && !gates.has(dataSource)) {
      gates.set(dataSource, new SqliteConnectionGate(dataSource));
      tokenPersistSteps();
    }
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

  /** The current async call chain runs in the transaction that owns the connection. */
  ownsCurrentChain(): boolean {
    return this.owner !== null && gateOwner.getStore() === this.owner;
  }

  private wrap(runner: QueryRunner): void {
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    const start = runner.startTransaction.bind(runner);
    const commit = runner.commitTransaction.bind(runner);
    const rollback = runner.rollbackTransaction.bind(runner);

    (runner as { query: unknown }).query = async (...args: unknown[]) => {
      while (this.owner !== null && !this.ownsCurrentChain()) await this.released;
      return query(...args);
    };
    // A transaction TypeORM opens by itself (save() outside run()) takes the connection too, under its
    // persist step's token. A savepoint inside the owner (its transaction active) is its own.
    runner.startTransaction = async (isolation) => {
      if (this.ownsCurrentChain() && (!this.ownerImplicit || runner.isTransactionActive)) return start(isolation);
      let token = gateOwner.getStore();
      const counted = token?.description !== IMPLICIT || token === this.owner;
      if (counted) {
        // Not from a persist step (a bare transaction()): a token now, seen by the caller's continuation.
        token = Symbol(IMPLICIT);
        runsInFlight++;
        gateOwner.enterWith(token);
      }
      await this.acquire(token!, counted);
      try {
        await start(isolation);
      } catch (error) {
        if (!runner.isTransactionActive) this.free();
        throw error;
      }
    };
    const ending = (end: () => Promise<void>) => async () => {
      try {
        await end();
      } finally {
        if (this.ownerImplicit && !runner.isTransactionActive) this.free();
      }
    };
    runner.commitTransaction = ending(commit);
    runner.rollbackTransaction = ending(rollback);
  }

  /** implicitCounted: null for a run(), else an implicit transaction (and whether it counts in runsInFlight). */
  private async acquire(owner: symbol, implicitCounted: boolean | null = null): Promise<void> {
    while (this.owner !== null) await this.released;
    this.owner = owner;
    this.ownerImplicit = implicitCounted !== null;
    this.ownerCounted = implicitCounted === true;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  private free(): void {
    if (this.ownerCounted) runEnded();
    this.ownerImplicit = this.ownerCounted = false;
    this.owner = null;
    this.release();
  }
}
