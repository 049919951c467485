import type { EntityManager } from 'typeorm';
import type { QueryBuilder } from './query-builder/query-builder';

/**
 * Find options that lock the rows read until the transaction ends (`FOR UPDATE`), for
 * read-then-write transactions: `repo.findOne({ where, ...forUpdate(manager) })`.
 *
 * PostgreSQL runs transactions at once (READ COMMITTED): without the lock two of them read the same
 * row and both act on what they read (two avatar replacements each deleting the same old file, a
 * deletion missing a build filed meanwhile). SQLite needs none (TransactionRunner runs one write
 * transaction at a time) and TypeORM offers none there.
 */
export function forUpdate(manager: EntityManager): { lock?: { mode: 'pessimistic_write' } } {
  return manager.connection.options.type === 'postgres' ? { lock: { mode: 'pessimistic_write' } } : {};
}

/** The same lock for a Kysely SELECT: `FOR UPDATE` on PostgreSQL, the SELECT as it is on SQLite (which has no such clause). */
export function lockedForUpdate<Q extends { forUpdate(): Q }>(builder: QueryBuilder, query: Q): Q {
  return builder.postgres ? query.forUpdate() : query;
}
