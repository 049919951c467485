import { EventReceipts } from './event-receipts';

describe('EventReceipts', () => {
  it('counts receipts that arrive before Redis says how many instances the event reached', async () => {
    const receipts = new EventReceipts(60_000);
    const missing = await receipts.collect('a', async () => {
      receipts.received('a');
      receipts.received('a');
      return 2;
    });
    expect(missing).toBe(0);
  });

  it('resolves when the last expected receipt comes in', async () => {
    const receipts = new EventReceipts(60_000);
    const collected = receipts.collect('b', async () => 2);
    await Promise.resolve();
    receipts.received('b');
    receipts.received('other');
    await new Promise((resolve) => setImmediate(resolve));
    receipts.received('b');
    await expect(collected).resolves.toBe(0);
  });

  it('gives up after its time, saying how many instances stayed silent', async () => {
    const receipts = new EventReceipts(20);
    await expect(receipts.collect('c', async () => 3)).resolves.toBe(3);
    receipts.received('c');
  });

  it('does not wait past its time for Redis to take the event', async () => {
    const receipts = new EventReceipts(20);
    await expect(receipts.collect('d', () => new Promise<number>(() => undefined))).resolves.toBeNull();
  });

  it('passes on a failure to publish', async () => {
    const receipts = new EventReceipts(60_000);
    await expect(receipts.collect('e', () => Promise.reject(new Error('Redis away')))).rejects.toThrow('Redis away');
  });
});
