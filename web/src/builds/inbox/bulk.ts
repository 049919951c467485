/**
 * Acting on several builds at once (the inbox's selection, the upload queue): one request per
 * build through the existing endpoints, so permissions, history and webhooks stay per build, a
 * few at a time so the relay and the browser's connection pool are not flooded.
 */
export const BULK_CONCURRENCY = 4;

export type Outcome<T> = { item: T; ok: true } | { item: T; ok: false; error: string };

/** Runs `work` for every item, at most `limit` at once; every item gets its outcome, in the items' order. */
export async function runLimited<T>(items: T[], work: (item: T) => Promise<unknown>, limit = BULK_CONCURRENCY): Promise<Outcome<T>[]> {
  const outcomes: Outcome<T>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      try {
        await work(item);
        outcomes[index] = { item, ok: true };
      } catch (err) {
        outcomes[index] = { item, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return outcomes;
}

/** "8 set to Done, 2 failed: Foo 1.0 (Build not found); Bar 2.0 (…)", naming at most three failures. */
export function bulkSummary<T>(outcomes: Outcome<T>[], done: string, name: (item: T) => string): string {
  const succeeded = outcomes.filter((o) => o.ok).length;
  const failed = outcomes.filter((o): o is Extract<Outcome<T>, { ok: false }> => !o.ok);
  const head = `${succeeded} ${done}`;
  if (!failed.length) return head;
  const named = failed.slice(0, 3).map((o) => `${name(o.item)} (${o.error})`);
  const more = failed.length > 3 ? `; and ${failed.length - 3} more` : '';
  return `${head}, ${failed.length} failed: ${named.join('; ')}${more}`;
}

/**
 * The rows a shift-click selects: every id between the anchor (the last row clicked) and this one,
 * in page order; just this one when the anchor is not on the page.
 */
export function rangeBetween(ids: number[], anchor: number | null, target: number): number[] {
  const from = anchor === null ? -1 : ids.indexOf(anchor);
  const to = ids.indexOf(target);
  if (from < 0 || to < 0) return [target];
  return ids.slice(Math.min(from, to), Math.max(from, to) + 1);
}
