/** The two databases the relay runs on. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * Where a statement runs: the SqlExecutor (outside a transaction, or in the caller's open one) or
 * the transaction TransactionRunner.run() hands its work. The one shape repositories take, so a
 * repository method runs the same statement alone or inside a caller's transaction.
 */
export interface Sql {
  readonly dialect: Dialect;
  /** The rows as objects: a SELECT's, or what a write names in RETURNING (none without it). */
  query<R = Record<string, unknown>>(sql: string, parameters?: readonly unknown[]): Promise<R[]>;
  /** A SELECT's rows as arrays of their values, in column order (cheaper than objects for many rows). */
  queryArrays(sql: string, parameters?: readonly unknown[]): Promise<unknown[][]>;
}
