import { Worker } from 'node:worker_threads';

/**
 * bcrypt's async calls run on libuv's thread pool (four threads), the same threads that open,
 * write, rename and fsync every uploaded file: a burst of sign-ins queued every upload behind
 * them (issue 27; `npm run bench:password-pool` shows the wait). Hashing runs here instead, on
 * worker threads of its own, with bcrypt's synchronous calls (each blocks only its worker).
 *
 * The worker is an inline CommonJS script (`eval`) requiring bcrypt by absolute path, so the same
 * code runs from the TypeScript sources under jest and from dist/ without a separate worker file.
 */
const workerSource = (bcryptPath: string) => `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(bcryptPath)});
parentPort.on('message', ({ id, op, text, arg }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(text, arg) : bcrypt.compareSync(text, arg);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});`;

type Job = { id: number; op: 'hash' | 'compare'; text: string; arg: string | number; resolve: (v: never) => void; reject: (e: Error) => void };

export class PasswordWorkers {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private started = 0;
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number) {}

  hash(text: string, cost: number): Promise<string> {
    return this.run('hash', text, cost);
  }

  compare(text: string, hash: string): Promise<boolean> {
    return this.run('compare', text, hash);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('password hashing stopped'));
    const workers = [...this.idle.splice(0), ...this.busy.keys()];
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private run<T>(op: Job['op'], text: string, arg: string | number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('password hashing stopped'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, text, arg, resolve: resolve as Job['resolve'], reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const job = this.queue.shift()!;
      this.busy.set(worker, job);
      worker.postMessage({ id: job.id, op: job.op, text: job.text, arg: job.arg });
    }
  }

  private spawn(): Worker {
    this.started++;
    const worker = new Worker(workerSource(require.resolve('bcrypt')), { eval: true });
    // Idle hashing threads must not keep a CLI command or a test's process alive.
    worker.unref();
    worker.on('message', (message: { result?: unknown; error?: string }) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle.push(worker);
      if (job) {
        if (message.error !== undefined) job.reject(new Error(message.error));
        else job.resolve(message.result as never);
      }
      this.dispatch();
    });
    worker.on('error', (error) => this.lose(worker, error));
    worker.on('exit', (code) => this.lose(worker, new Error(`password worker exited with code ${code}`)));
    return worker;
  }

  /** A worker that died fails only the job it held; the next job starts a fresh one. */
  private lose(worker: Worker, error: Error): void {
    const job = this.busy.get(worker);
    const wasIdle = this.idle.indexOf(worker);
    if (!job && wasIdle < 0) return;
    this.busy.delete(worker);
    if (wasIdle >= 0) this.idle.splice(wasIdle, 1);
    this.started--;
    job?.reject(error);
    if (!this.closed) this.dispatch();
  }
}
