import { DeviceQueue, Waiter } from './device-queue';

/** Fairness of the hub's queue: members take turns, each member's requests oldest first. */
describe('DeviceQueue', () => {
  const served: string[] = [];
  const waiter = (userId: number, name: string, wants = (_d: string) => true): Waiter<string> => ({
    userId,
    matches: wants,
    take: () => true,
    grant: (d) => served.push(`${name}:${d}`),
  });

  beforeEach(() => (served.length = 0));

  it('gives free devices to members in turn, so one member’s burst does not starve another', () => {
    const queue = new DeviceQueue<string>();
    for (let i = 1; i <= 4; i++) queue.enqueue(waiter(1, `a${i}`));
    queue.enqueue(waiter(2, 'b1'));
    queue.serve(['d1', 'd2', 'd3']);
    expect(served).toEqual(['a1:d1', 'b1:d2', 'a2:d3']);
    expect(queue.size).toBe(2);
  });

  it('serves a member’s oldest request that a free device matches, and leaves the others waiting', () => {
    const queue = new DeviceQueue<string>();
    queue.enqueue(waiter(1, 'ios', (d) => d.startsWith('ios')));
    queue.enqueue(waiter(1, 'android', (d) => d.startsWith('android')));
    queue.serve(['android-1']);
    expect(served).toEqual(['android:android-1']);
    expect(queue.size).toBe(1);
  });

  it('forgets a removed request (timed out, or its client gone)', () => {
    const queue = new DeviceQueue<string>();
    const gone = waiter(1, 'gone');
    queue.enqueue(gone);
    queue.enqueue(waiter(2, 'b'));
    expect(queue.remove(gone)).toBe(true);
    queue.serve(['d1']);
    expect(served).toEqual(['b:d1']);
  });
});
