import { PasswordWorkers } from './password-workers';

/** Holds the main thread, as a busy relay's event loop does, without spinning a core. */
const holdMainThread = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordWorkers', () => {
  // Issue 27: a worker was handed its next job only once the main thread had read its last answer,
  // so a burst of sign-ins went through at one per event-loop turn (290 ms at p50 under bench:soak
  // for 0.8 ms of bcrypt each). Every job goes to a worker at once now: while the main thread is
  // held, the worker does the whole burst, and the next turn reads every answer. On the old pool one
  // answer was read there (one job had been handed out).
  it('a burst is done at the worker\'s pace, not one job per event-loop turn', async () => {
    const workers = new PasswordWorkers(1);
    try {
      const hash = await workers.hash('right', 4);
      let answered = 0;
      const burst = Array.from({ length: 20 }, (_, i) => workers.compare(i % 2 ? 'right' : 'wrong', hash).then((ok) => (answered++, ok)));
      holdMainThread(1_000);
      await nextTurn();
      expect(answered).toBe(20);
      expect(await Promise.all(burst)).toEqual(Array.from({ length: 20 }, (_, i) => i % 2 === 1));
    } finally {
      await workers.close();
    }
  });

  it('spreads jobs over its workers and answers each its own', async () => {
    const workers = new PasswordWorkers(3);
    try {
      const hashes = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((text) => workers.hash(text, 4)));
      const checks = await Promise.all(hashes.flatMap((hash, i) => ['a', 'b', 'c', 'd', 'e'].map((text, j) => workers.compare(text, hash).then((ok) => ok === (i === j)))));
      expect(checks.every(Boolean)).toBe(true);
      expect(workers.inHand).toBe(0);
    } finally {
      await workers.close();
    }
  });

  it('a worker that dies fails the job it was on; the jobs behind it are done by a fresh one', async () => {
    const workers = new PasswordWorkers(1);
    try {
      // Cost 12: each compare takes a few hundred ms, so the worker is on the first when it goes.
      const hash = await workers.hash('right', 12);
      const jobs = [workers.compare('right', hash), workers.compare('right', hash), workers.compare('wrong', hash)];
      // The worker's own code catches bcrypt's errors: a termination stands for a crash.
      await (workers as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots[0].worker.terminate();
      expect(await Promise.allSettled(jobs)).toEqual([
        { status: 'rejected', reason: new Error('password worker exited with code 1') },
        { status: 'fulfilled', value: true },
        { status: 'fulfilled', value: false },
      ]);
      expect(workers.inHand).toBe(0);
    } finally {
      await workers.close();
    }
  }, 30_000);

  it('estimates the wait of a job posted now: none while a worker is free, the shortest queue at the recent pace once all are busy', async () => {
    const workers = new PasswordWorkers(2);
    try {
      expect(workers.waitEstimateMs).toBe(0);
      const hash = await workers.hash('right', 8);
      // One worker started and idle: the second may still be started.
      const first = workers.compare('right', hash);
      expect(workers.waitEstimateMs).toBe(0);
      const queued = [first, ...Array.from({ length: 5 }, () => workers.compare('wrong', hash))];
      // Six jobs on two workers, three each: three jobs' worth at the pace of the hash just done.
      expect(workers.waitEstimateMs).toBeGreaterThan(0);
      const threeJobs = workers.waitEstimateMs;
      queued.push(workers.compare('wrong', hash));
      expect(workers.waitEstimateMs).toBe(threeJobs);
      queued.push(workers.compare('wrong', hash));
      expect(workers.waitEstimateMs).toBeCloseTo((threeJobs * 4) / 3);
      await Promise.all(queued);
      expect(workers.waitEstimateMs).toBe(0);
    } finally {
      await workers.close();
    }
  });
});
