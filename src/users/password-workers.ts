import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt's async calls run on libuv's thread pool (four threads), the same threads that open,
 * write, rename and fsync every uploaded file: a burst of sign-ins queued every upload behind
 * them (issue 27; `npm run bench:password-pool` shows the wait). Hashing runs here instead, on
 * worker threads of its own, with bcrypt's synchronous calls (each blocks only its worker).
 *
 * Every job is posted to a worker as soon as it arrives (to the one with the fewest in hand), and
 * the worker takes them from its message queue one after another. Handing a worker its next job
 * only once the main thread had read its last answer made each job wait a whole event-loop turn
 * of the relay: under `bench:soak` a turn was 5–30 ms against 0.8 ms of bcrypt at cost 4, so the
 * worker stood idle, sign-ins queued ~1 per turn behind each other and a sign-in took 290 ms at
 * p50 (docs/decisions.md#issue-27-signin). Now a burst is done at the workers' pace, and its
 * answers are read together in the main thread's next turn.
 *
 * The worker is a file of its own (password-worker.js, plain type-checked JavaScript) found beside
 * this one, in src/ under jest and in dist/ where Nest copies it as an asset, like the plist worker.
 */
const WORKER_FILE = join(__dirname, 'password-worker.js');

type Job = { id: number; op: 'hash' | 'compare'; text: string; arg: string | number; resolve: (v: never) => void; reject: (e: Error) => void };

/** A worker and the jobs posted to it, oldest (the one it is on) first. */
type Slot = { worker: Worker; jobs: Job[] };

export class PasswordWorkers {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** How long one job takes a worker, averaged over the last few (0 until one is done). */
  private jobMs = 0;

  constructor(private readonly size: number) {}

  hash(text: string, cost: number): Promise<string> {
    return this.run('hash', text, cost);
  }

  compare(text: string, hash: string): Promise<boolean> {
    return this.run('compare', text, hash);
  }

  /**
   * How long a job posted now would wait before a worker starts it: nothing while a worker is idle
   * or one may still be started, else the shortest queue's jobs at the recent pace per job.
   */
  get waitEstimateMs(): number {
    if (this.slots.length < this.size) return 0;
    return Math.min(...this.slots.map((slot) => slot.jobs.length)) * this.jobMs;
  }

  /** Jobs posted and not yet answered, all workers together (tests, metrics). */
  get inHand(): number {
    return this.slots.reduce((sum, slot) => sum + slot.jobs.length, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const job of slot.jobs.splice(0)) job.reject(new Error('password hashing stopped'));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private run<T>(op: Job['op'], text: string, arg: string | number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('password hashing stopped'));
    return new Promise<T>((resolve, reject) => {
      this.post({ id: this.nextId++, op, text, arg, resolve: resolve as Job['resolve'], reject });
    });
  }

  private post(job: Job): void {
    const slot = this.leastBusy();
    slot.jobs.push(job);
    slot.worker.postMessage({ id: job.id, op: job.op, text: job.text, arg: job.arg });
  }

  /** An idle worker, else a new one while under `size`, else the one with the fewest jobs in hand. */
  private leastBusy(): Slot {
    let best: Slot | undefined;
    for (const slot of this.slots) if (!best || slot.jobs.length < best.jobs.length) best = slot;
    if (best && (best.jobs.length === 0 || this.slots.length >= this.size)) return best;
    return this.spawn();
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_FILE);
    const slot: Slot = { worker, jobs: [] };
    this.slots.push(slot);
    // Idle hashing threads must not keep a CLI command or a test's process alive.
    worker.unref();
    worker.on('message', (message: { id: number; result?: unknown; error?: string; ms: number }) => {
      // Answers come in the order the jobs were posted.
      const job = slot.jobs[0]?.id === message.id ? slot.jobs.shift() : undefined;
      if (!job) return;
      this.jobMs = this.jobMs === 0 ? message.ms : this.jobMs * 0.8 + message.ms * 0.2;
      if (message.error !== undefined) job.reject(new Error(message.error));
      else job.resolve(message.result as never);
    });
    worker.on('error', (error) => this.lose(slot, error));
    worker.on('exit', (code) => this.lose(slot, new Error(`password worker exited with code ${code}`)));
    return slot;
  }

  /**
   * A worker that died fails only the job it was on (its oldest: the answers before it were read
   * before 'exit'); the jobs behind it go to the other workers or a fresh one.
   */
  private lose(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const [current, ...waiting] = slot.jobs.splice(0);
    current?.reject(error);
    for (const job of waiting) this.post(job);
  }
}
