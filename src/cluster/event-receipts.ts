/** How long an instance that announced an event waits for the others to say they handled it. */
export const RECEIPTS_WITHIN_MS = 1_000;

interface Waiting {
  received: number;
  expected: number;
  done: () => void;
}

/**
 * Counts the receipts other instances send back for an event published with an id: a revocation
 * answers only once every instance has forgotten the credential (issue 42). Redis says how many
 * subscribers a message reached; receipts that arrive before it says so are counted all the same.
 */
export class EventReceipts {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly withinMs = RECEIPTS_WITHIN_MS) {}

  /**
   * Runs `publish` (which resolves with how many other instances the message reached) and waits
   * for that many receipts of `id`, at most `withinMs` in all, publishing included. Resolves with
   * how many did not come, or null when Redis did not say in time how many it reached.
   */
  async collect(id: string, publish: () => Promise<number>): Promise<number | null> {
    const entry: Waiting = { received: 0, expected: Infinity, done: () => undefined };
    this.waiting.set(id, entry);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<number | null>((resolve, reject) => {
        entry.done = () => resolve(0);
        timer = setTimeout(() => resolve(entry.expected === Infinity ? null : entry.expected - entry.received), this.withinMs);
        publish().then((reached) => {
          entry.expected = reached;
          if (entry.received >= reached) entry.done();
        }, reject);
      });
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  /** A receipt for `id` came in (one for an id no longer awaited is ignored). */
  received(id: string): void {
    const entry = this.waiting.get(id);
    if (!entry) return;
    entry.received++;
    if (entry.received >= entry.expected) entry.done();
  }
}
