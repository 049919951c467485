/**
 * Runs tasks one after another inside this process. Used where a read-check-write must not
 * interleave with another request's (last-Admin rule, single-use tokens); the database's own
 * conditional updates stay the final word.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
