/** What a `q` or `search` list's counting statement found (build-list.repository.ts `textCounts`). */
export interface TextCounts {
  /** How many builds there are (searchMode weighs the total against it). */
  builds: number;
  /** The exact number of matches: the list's total. */
  total: number;
}

/**
 * The counts of `q` and `search` lists, kept per process (docs/decisions.md#issue-27-text): at a
 * million builds a broad term's exact total is a count of up to a million rows (a second on
 * SQLite, where it would hold every other request), while its page is a short walk of the sort
 * index. A kept count is valid while `build_list_changes.n` (bumped by triggers on every write that
 * can change such a total, whoever writes, on any instance) is the value read before it was
 * counted: the count then reflects that state or a later one, never an earlier. Requests asking
 * the same count while it runs share it, so a burst after a write counts once.
 */
export class SearchTotals {
  private changes = -1;
  private readonly kept = new Map<string, Promise<TextCounts>>();

  constructor(private readonly capacity = 1_000) {}

  /**
   * The counts of the list `key` in the state `changes` names: kept ones, or `count()`'s (kept).
   * `changes` older than the newest seen (a statement that started before a write committed) is
   * counted and not kept.
   */
  get(key: string, changes: number, count: () => Promise<TextCounts>): Promise<TextCounts> {
    if (changes < this.changes) return count();
    if (changes > this.changes) {
      this.kept.clear();
      this.changes = changes;
    }
    const kept = this.kept.get(key);
    if (kept) {
      // The most recently asked last, so the oldest go first when full.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept;
    }
    const counting = count();
    this.kept.set(key, counting);
    if (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value!);
    // A failed count is not kept (the caller sees the failure).
    counting.catch(() => this.kept.get(key) === counting && this.kept.delete(key));
    return counting;
  }
}
