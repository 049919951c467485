import { AsyncLocalStorage } from 'node:async_hooks';
import type { Session } from './executor/connection';
import type { Dialect, Sql } from './sql';

/**
 * An open transaction as statements see it: its session (the connection it owns) and a counter for
 * the savepoints of the runs nested in it.
 */
export class Transaction implements Sql {
  private savepoints = 0;

  constructor(
    readonly dialect: Dialect,
    readonly session: Session,
  ) {}

  query<R = Record<string, unknown>>(sql: string, parameters: readonly unknown[] = []): Promise<R[]> {
    return this.session.query(sql, parameters, false) as Promise<R[]>;
  }

  queryArrays(sql: string, parameters: readonly unknown[] = []): Promise<unknown[][]> {
    return this.session.query(sql, parameters, true) as Promise<unknown[][]>;
  }

  /** A name for the next nested run's savepoint, unique in this transaction. */
  nextSavepoint(): string {
    return `svc_savepoint_${++this.savepoints}`;
  }
}

/** One open transaction, or one savepoint of it, as the code inside it sees it. */
export interface TransactionScope {
  transaction: Transaction;
  /** What runs after the outermost commit. */
  afterCommit: (() => Promise<void> | void)[];
  /** False once its run() has ended: work it left running (a listener) starts its own. */
  open: boolean;
}

/** The transaction the current async call chain runs in; shared by every runner of the process. */
export const currentScope = new AsyncLocalStorage<TransactionScope>();

/** The open transaction of the caller's async call chain, if any. */
export function openTransaction(): Transaction | undefined {
  const scope = currentScope.getStore();
  return scope?.open ? scope.transaction : undefined;
}
