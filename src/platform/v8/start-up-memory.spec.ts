import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { releaseStartUpMemory, sendLowMemoryNotification } from './start-up-memory';

const MB = 1024 * 1024;
const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

/** What start-up does to the young generation: many allocations that survive scavenges grow it to its maximum. */
function growYoungGeneration(): unknown[] {
  const kept: unknown[] = [];
  for (let i = 0; i < 400_000; i++) kept.push({ i, name: `module ${i}`, exports: [i] });
  return kept;
}

describe('start-up memory', () => {
  it('the low-memory notification shrinks the young generation start-up grew', async () => {
    const kept = growYoungGeneration();
    expect(youngGeneration()).toBeGreaterThan(8 * MB);
    expect(await sendLowMemoryNotification()).toBe(true);
    expect(youngGeneration()).toBeLessThanOrEqual(2 * MB);
    expect(kept).toHaveLength(400_000);
  });

  it('is sent once, a moment after listening, and says so at debug level', async () => {
    const kept = growYoungGeneration();
    expect(youngGeneration()).toBeGreaterThan(8 * MB);
    const debug: string[] = [];
    releaseStartUpMemory({ log: () => undefined, error: () => undefined, warn: () => undefined, debug: (message: string) => debug.push(message) });
    expect(youngGeneration()).toBeGreaterThan(8 * MB);
    for (let i = 0; i < 100 && debug.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(debug).toEqual([expect.stringMatching(/^start-up memory released in \d+ ms: RSS \d+ → \d+ MB$/)]);
    expect(youngGeneration()).toBeLessThanOrEqual(2 * MB);
    expect(kept).toHaveLength(400_000);
  });

  it('waits for a quiet second: not while the event loop is busy (and the heap under its ceiling)', async () => {
    const kept = growYoungGeneration();
    const debug: string[] = [];
    releaseStartUpMemory({ log: () => undefined, error: () => undefined, warn: () => undefined, debug: (message: string) => debug.push(message) }, 4096);
    // 2.5 s of requests-like work: the loop busy ~80 % of the time
    const busyUntil = performance.now() + 2500;
    while (performance.now() < busyUntil) {
      const spinUntil = performance.now() + 40;
      while (performance.now() < spinUntil);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(debug).toEqual([]);
    expect(youngGeneration()).toBeGreaterThan(8 * MB);
    for (let i = 0; i < 100 && debug.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(debug).toHaveLength(1);
    expect(youngGeneration()).toBeLessThanOrEqual(2 * MB);
    expect(kept).toHaveLength(400_000);
  });

  it('is sent while the event loop is busy once the heap in use passes the ceiling', async () => {
    const debug: string[] = [];
    const ceilingMb = Math.ceil(getHeapStatistics().used_heap_size / MB) + 24;
    releaseStartUpMemory({ log: () => undefined, error: () => undefined, warn: () => undefined, debug: (message: string) => debug.push(message) }, ceilingMb);
    const kept: unknown[] = [];
    // Requests-like work that keeps the loop ~80 % busy and keeps what it allocates, past the ceiling
    const busyUntil = performance.now() + 5000;
    while (performance.now() < busyUntil && debug.length === 0) {
      const spinUntil = performance.now() + 40;
      while (performance.now() < spinUntil) if (getHeapStatistics().used_heap_size < (ceilingMb + 8) * MB) kept.push({ name: `row ${kept.length}`, cells: [kept.length] });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(debug).toEqual([expect.stringMatching(/^start-up memory released in \d+ ms/)]);
    expect(kept.length).toBeGreaterThan(0);
  });
});
