/** A request for a device, waiting in the queue. */
export interface Waiter<D> {
  userId: number;
  matches(device: D): boolean;
  /** Reserves the device for this request (atomically, cluster-wide with Redis); false when it is gone meanwhile. */
  take(device: D): Promise<boolean>;
  /** Handed a device it took. */
  grant(device: D): void;
  /** A device it took after it stopped waiting: freed again. */
  giveBack?(device: D): void;
}

/**
 * Who gets a device that is free (docs/device-tests.md "Queue"): members take turns, and each
 * member's own requests go oldest first (the oldest that a free device matches). A member whose
 * request was just served goes to the back, so one member's burst of requests cannot keep another
 * member's waiting forever.
 */
export class DeviceQueue<D> {
  private readonly byMember = new Map<number, Waiter<D>[]>();
  /** Members in turn order (the next to be served first). */
  private turns: number[] = [];

  get size(): number {
    let n = 0;
    for (const list of this.byMember.values()) n += list.length;
    return n;
  }

  enqueue(waiter: Waiter<D>): void {
    const list = this.byMember.get(waiter.userId);
    if (list) list.push(waiter);
    else {
      this.byMember.set(waiter.userId, [waiter]);
      this.turns.push(waiter.userId);
    }
  }

  remove(waiter: Waiter<D>): boolean {
    const list = this.byMember.get(waiter.userId);
    const index = list?.indexOf(waiter) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    if (!list.length) {
      this.byMember.delete(waiter.userId);
      this.turns = this.turns.filter((id) => id !== waiter.userId);
    }
    return true;
  }

  /**
   * Offers `free` devices: each member in turn gets one for their oldest request it matches, until
   * no device matches any waiting request. Offers run one at a time (a request is never handed two
   * devices while a reservation is being taken).
   */
  serve(free: D[]): Promise<void> {
    this.serving = this.serving.then(() => this.offer(free));
    return this.serving;
  }

  private serving: Promise<void> = Promise.resolve();

  private async offer(free: D[]): Promise<void> {
    const left = [...free];
    let served = true;
    while (served && left.length && this.turns.length) {
      served = false;
      for (const userId of [...this.turns]) {
        const waiter = this.byMember.get(userId)?.find((w) => left.some((d) => w.matches(d)));
        if (!waiter) continue;
        const index = left.findIndex((d) => waiter.matches(d));
        const [device] = left.splice(index, 1);
        const taken = await waiter.take(device).catch(() => false);
        if (!taken) continue;
        // Gone while the reservation was taken (timed out, its client left): the device is freed again.
        if (!this.remove(waiter)) {
          waiter.giveBack?.(device);
          continue;
        }
        // Served: to the back of the turn order (if they still wait for more).
        if (this.byMember.has(userId)) this.turns = [...this.turns.filter((id) => id !== userId), userId];
        waiter.grant(device);
        served = true;
        break;
      }
    }
  }
}
