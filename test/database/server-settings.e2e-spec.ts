import { DataSource } from 'typeorm';
import { itPostgresOnly, itSqliteOnly } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * What the relay says at start about the database server's settings (docs/database.md#autovacuum).
 * Whichever way the test server is set, the relay's log must say the matching thing.
 */
describe("the database server's settings", () => {
  const ctx = useTestRelay();
  const warnings = () => ctx.relay.logger.buffer.tail(500).filter((line) => line.includes('autovacuum'));

  itPostgresOnly('SQLite has no autovacuum')(
    'warns at start exactly when PostgreSQL autovacuum is off',
    async () => {
      const [{ autovacuum }] = (await ctx.relay.app.get(DataSource).query('SHOW autovacuum')) as { autovacuum: string }[];
      const lines = warnings().map((line) => JSON.parse(line) as { level: string; context: string; msg: string });
      if (autovacuum === 'on') expect(lines).toEqual([]);
      else expect(lines).toEqual([expect.objectContaining({ level: 'warn', context: 'Database', msg: expect.stringContaining('VACUUM ANALYZE') })]);
    },
  );

  itSqliteOnly('on PostgreSQL the test above checks it')('says nothing about autovacuum on SQLite', () => {
    expect(warnings()).toEqual([]);
  });
});
