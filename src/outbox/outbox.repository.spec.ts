import type { SqlExecutor } from '../database/sql-executor';
import { OutboxRepository } from './outbox.repository';

/** Every statement of the repository compiles as a prepared statement (no value written in) on both dialects. */
describe('OutboxRepository statements', () => {
  it.each(['better-sqlite3', 'postgres'] as const)('compile on %s', async (type) => {
    const ran: string[] = [];
    const executor = { dialect: type === 'postgres' ? 'postgres' : 'sqlite', query: async (sql: string) => (ran.push(sql), []) };
    const repo = new OutboxRepository(executor as unknown as SqlExecutor);
    await repo.insert({ kind: 'mail', destination: 'mail', payload: '{}', now: 1 });
    await repo.due(1, 20);
    await repo.anyQueued();
    await repo.settle(1, { status: 'delivered', attempts: 1, nextAttemptAt: 1, lastError: null, lastAttemptAt: 1, deliveredAt: 1 });
    await repo.destinations();
    expect(ran).toHaveLength(5);
  });
});
