import type { Dialect } from '../sql';

/** A statement's rows: objects, or arrays of values when `arrays`. */
export type Rows = unknown[];

/** One transaction's hold on a connection, from its BEGIN to end(). */
export interface Session {
  query(sql: string, parameters: readonly unknown[], arrays: boolean): Promise<Rows>;
  /** COMMIT (`commit`) or ROLLBACK, then the connection goes back. A failed COMMIT rolls back and throws. */
  end(commit: boolean): Promise<void>;
}

/** A connection held for a few statements outside any transaction, until release(). */
export interface Held {
  query(sql: string, parameters: readonly unknown[], arrays: boolean): Promise<Rows>;
  release(): void;
}

/** A database as the executor sees it: statements alone, a connection held for a few, and sessions for transactions. */
export interface Connection {
  readonly dialect: Dialect;
  query(sql: string, parameters: readonly unknown[], arrays: boolean): Promise<Rows>;
  hold(): Promise<Held>;
  begin(): Promise<Session>;
}
