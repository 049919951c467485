/** How long a cached read stands without a change announced: the net under changes no event tells (a row edited by hand). */
export const READ_CACHE_MS = 60_000;

/**
 * One small table's read (chat destinations, gate policies, which apps have testers), reused until its
 * owner says it changed, so the background work after every upload and verdict does not ask the
 * database each time (issue 42). The owner clears it when it writes, and on the event its writes
 * announce on every instance (`@OnEventOnEveryInstance`). A read that was under way while it was
 * cleared may hold the old rows: `generation` moves on every clearing, and such a read is not kept.
 * Callers must not change what they get: it is shared.
 */
export class ReadCache<T> {
  private held: { value: T; until: number } | null = null;
  private generation = 0;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs = READ_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<T> {
    if (this.held && this.held.until > this.now()) return this.held.value;
    const generation = this.generation;
    const value = await this.load();
    if (generation === this.generation) this.held = { value, until: this.now() + this.ttlMs };
    return value;
  }

  clear(): void {
    this.generation++;
    this.held = null;
  }
}
