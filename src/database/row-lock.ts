import type { QueryBuilder } from './query-builder/query-builder';

/**
 * A SELECT that locks the rows it reads until the transaction ends: `FOR UPDATE` on PostgreSQL, the
 * SELECT as it is on SQLite (which has no such clause), for read-then-write transactions.
 *
 * PostgreSQL runs transactions at once (READ COMMITTED): without the lock two of them read the same
 * row and both act on what they read (two avatar replacements each deleting the same old file, a
 * deletion missing a build filed meanwhile). SQLite needs none: its transactions take turns on the
 * one connection (SqlExecutor).
 */
export function lockedForUpdate<Q extends { forUpdate(): Q }>(builder: QueryBuilder, query: Q): Q {
  return builder.postgres ? query.forUpdate() : query;
}
