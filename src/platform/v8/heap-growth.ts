import { setFlagsFromString } from 'node:v8';

/** Unless the command line chose its own. */
const GROWING_PERCENT = 50;

/**
 * Caps how far V8's old generation grows between full collections: to 1.5× what the last one kept
 * (`--heap-growing-percent=50`), instead of the factor V8 picks from its GC and mutator speeds, which
 * under the mixed load is its maximum, 4 (on a machine with 8 GB or more). With 4 the relay's ~60 MB
 * of live heap let the committed heap reach ~250 MB between collections, and the native memory that
 * dead objects hold (SQLite statements, sockets) waited as long: peak RSS 372 MB in a 3-minute soak,
 * 220 MB with 1.5, at the same CPU per request (docs/decisions.md#issue-27-memory). Until then the
 * factor was forced up to 4 for the screenshot path (item 28); since its reads are pooled (item 32)
 * it runs no full collections at either factor. Read by V8 at each limit computation, so setting it
 * at start-up is enough; `node --heap-growing-percent=N` on the command line wins.
 */
export function capHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
}
