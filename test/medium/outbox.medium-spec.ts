import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { useMediumDatabase } from './medium-database';

describe('OutboxRepository on the database (medium): messages queued, due, settled, summed per destination', () => {
  const db = useMediumDatabase({ providers: [OutboxRepository] });
  const outbox = () => db().get(OutboxRepository);
  const T = 1_800_000_000_000;

  it('queues a message with its cause (or not at all), hands out what is due oldest first, settles only a queued one', async () => {
    expect(await outbox().anyQueued()).toBe(false);
    await outbox().insert({ kind: 'mail', destination: 'mail:ada@example.com', payload: '{"n":1}', now: T });
    await outbox().insert({ kind: 'slack', destination: 'slack:#builds', payload: '{"n":2}', now: T + 5 });
    await expect(
      db().transactions.run(async () => {
        await outbox().insert({ kind: 'mail', destination: 'mail:rolled@example.com', payload: '{}', now: T });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outbox().anyQueued()).toBe(true);
    expect(await outbox().due(T - 1, 10)).toEqual([]);
    const due = await outbox().due(T + 5, 10);
    expect(due.map(({ id: _id, ...rest }) => rest)).toEqual([
      { kind: 'mail', destination: 'mail:ada@example.com', payload: '{"n":1}', attempts: 0, createdAt: T },
      { kind: 'slack', destination: 'slack:#builds', payload: '{"n":2}', attempts: 0, createdAt: T + 5 },
    ]);
    expect((await outbox().due(T + 5, 1)).map((m) => m.id)).toEqual([due[0].id]);

    await outbox().settle(due[0].id, { status: 'queued', attempts: 1, nextAttemptAt: T + 60, lastError: 'timeout', lastAttemptAt: T + 1, deliveredAt: null });
    expect((await outbox().due(T + 59, 10)).map((m) => m.id)).toEqual([due[1].id]);
    await outbox().settle(due[0].id, { status: 'delivered', attempts: 2, nextAttemptAt: T + 60, lastError: null, lastAttemptAt: T + 61, deliveredAt: T + 61 });
    await outbox().settle(due[1].id, { status: 'failed', attempts: 1, nextAttemptAt: T + 5, lastError: '404', lastAttemptAt: T + 6, deliveredAt: null });
    // Settled already: a second sender's late answer changes nothing.
    await outbox().settle(due[1].id, { status: 'delivered', attempts: 2, nextAttemptAt: T + 5, lastError: null, lastAttemptAt: T + 7, deliveredAt: T + 7 });
    expect(await outbox().anyQueued()).toBe(false);
    expect(await outbox().due(T + 1_000, 10)).toEqual([]);

    expect(await outbox().destinations()).toEqual([
      { destination: 'mail:ada@example.com', kind: 'mail', queued: 0, delivered: 1, failed: 0, lastAttemptAt: T + 61, lastError: null },
      { destination: 'slack:#builds', kind: 'slack', queued: 0, delivered: 0, failed: 1, lastAttemptAt: T + 6, lastError: '404' },
    ]);
  });
});
