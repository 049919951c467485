import type { SqlExecutor } from './sql-executor';
import type { Sql } from './sql';

const ADVISORY_LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/**
 * Runs `work` while this process holds the database-wide lock `name`, so instances sharing a
 * PostgreSQL database take turns: a transaction of its own connection holds
 * `pg_advisory_xact_lock` until `work` settles, and the commit frees it.
 *
 * A lock beside the work, not a transaction around it: the work goes through other modules'
 * services, which open their own transactions and emit events (listeners would join an open one),
 * and a row lock (`FOR UPDATE`) would block their writes to the very rows it holds. Everything the
 * work writes is committed before the lock is freed, and the next holder reads it (READ COMMITTED).
 * The lock holds one pooled connection while the work uses others: callers keep one holder per
 * process (a queue in front), so a pool of two suffices. The lock's session is not the work's
 * transaction (the work's statements never see it).
 *
 * SQLite: nothing to take. A SQLite file belongs to one process (docs/scaling.md), and the caller
 * serialises its own process.
 */
export async function withDatabaseLock<T>(executor: SqlExecutor, name: string, work: () => Promise<T>): Promise<T> {
  if (executor.dialect !== 'postgres') return work();
  const session = await executor.begin();
  try {
    await session.query(ADVISORY_LOCK, [name], false);
    return await work();
  } finally {
    // Ends the transaction either way (a COMMIT of a failed one rolls it back), freeing the lock.
    await session.end(true);
  }
}

/**
 * Takes the database-wide lock `name` for the rest of `transaction`'s life (its commit or rollback
 * frees it), so instances take turns at one key without a connection of its own.
 * SQLite: nothing to take (one process owns the file, and its transactions already take turns).
 */
export async function lockForTransaction(transaction: Sql, name: string): Promise<void> {
  if (transaction.dialect !== 'postgres') return;
  await transaction.query(ADVISORY_LOCK, [name]);
}
