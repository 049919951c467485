import { Client } from 'pg';

/** Resolves once a statement on this PostgreSQL database waits for a lock another transaction holds. */
export async function relayWaitsForLock(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      const waiting = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (waiting.rows[0].n > 0) return;
    }
    throw new Error('no statement ever waited for the lock');
  } finally {
    await client.end();
  }
}

/** Another connection's transaction that has run `statement` and holds it uncommitted until commit(). */
export async function holdUncommitted(url: string, statement: string, values: unknown[]): Promise<{ commit: () => Promise<void> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(statement, values);
  return {
    commit: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}
