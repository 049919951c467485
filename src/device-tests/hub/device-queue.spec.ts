import { DeviceQueue, Waiter } from './device-queue';

/** Fairness of the hub's queue: members take turns, each member's requests oldest first. */
describe('DeviceQueue', () => {
  const served: string[] = [];
  const waiter = (userId: number, name: string, wants = (_d: string) => true): Waiter<string> => ({
    userId,
    matches: wants,
    take: async () => true,
    grant: (d) => served.push(`${name}:${d}`),
  });

  beforeEach(() => (served.length = 0));

  it('gives free devices to members in turn, so one member’s burst does not starve another', async () => {
    const queue = new DeviceQueue<string>();
    for (let i = 1; i <= 4; i++) queue.enqueue(waiter(1, `a${i}`));
    queue.enqueue(waiter(2, 'b1'));
    await queue.serve(['d1', 'd2', 'd3']);
    expect(served).toEqual(['a1:d1', 'b1:d2', 'a2:d3']);
    expect(queue.size).toBe(2);
  });

  it('serves a member’s oldest request that a free device matches, and leaves the others waiting', async () => {
    const queue = new DeviceQueue<string>();
    queue.enqueue(waiter(1, 'ios', (d) => d.startsWith('ios')));
    queue.enqueue(waiter(1, 'android', (d) => d.startsWith('android')));
    await queue.serve(['android-1']);
    expect(served).toEqual(['android:android-1']);
    expect(queue.size).toBe(1);
  });

  it('forgets a removed request (timed out, or its client gone)', async () => {
    const queue = new DeviceQueue<string>();
    const gone = waiter(1, 'gone');
    queue.enqueue(gone);
    queue.enqueue(waiter(2, 'b'));
    expect(queue.remove(gone)).toBe(true);
    await queue.serve(['d1']);
    expect(served).toEqual(['b:d1']);
  });

  it('keeps taking turns over several offers: a burst of eight from one member, one each from two others', async () => {
    const queue = new DeviceQueue<string>();
    for (let i = 1; i <= 8; i++) queue.enqueue(waiter(1, `a${i}`));
    queue.enqueue(waiter(2, 'b1'));
    await queue.serve(['d1']);
    queue.enqueue(waiter(3, 'c1'));
    for (let i = 2; i <= 5; i++) await queue.serve([`d${i}`]);
    // c joined behind a's turn (a had been served once already): one each, in turn, from then on.
    expect(served).toEqual(['a1:d1', 'b1:d2', 'a2:d3', 'c1:d4', 'a3:d5']);
  });

  it('leaves a request waiting, in its place, when its device was taken meanwhile (by another instance), and serves the next', async () => {
    const queue = new DeviceQueue<string>();
    const lost = { ...waiter(1, 'a1'), take: async (d: string) => d !== 'taken-elsewhere' };
    queue.enqueue(lost);
    queue.enqueue(waiter(2, 'b1'));
    await queue.serve(['taken-elsewhere', 'd2']);
    expect(served).toEqual(['b1:d2']);
    await queue.serve(['d3']);
    expect(served).toEqual(['b1:d2', 'a1:d3']);
  });

  it('offers one at a time: two offers at once never hand one request two devices', async () => {
    const queue = new DeviceQueue<string>();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    queue.enqueue({ ...waiter(1, 'a1'), take: async () => (await slow, true) });
    const first = queue.serve(['d1']);
    const second = queue.serve(['d2']);
    release();
    await Promise.all([first, second]);
    expect(served).toEqual(['a1:d1']);
    expect(queue.size).toBe(0);
  });

  it('gives back a device it took for a request that left while the reservation was being taken', async () => {
    const queue = new DeviceQueue<string>();
    const given: string[] = [];
    const leaving: Waiter<string> = { ...waiter(1, 'gone'), take: async () => (queue.remove(leaving), true), giveBack: (d) => given.push(d) };
    queue.enqueue(leaving);
    await queue.serve(['d1']);
    expect([served, given]).toEqual([[], ['d1']]);
  });
});
