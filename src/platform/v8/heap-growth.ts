import { setFlagsFromString } from 'node:v8';

/** Unless the command line chose its own. */
const GROWING_PERCENT = 300;

/**
 * Lets V8's old generation grow to 4× what the last full collection kept before the next one
 * (`--heap-growing-percent=300`), instead of the factor V8 picks from its GC and mutator speeds, which
 * in the relay stayed near 1.5–2. Each screenshot through the relay leaves ~1 MiB of socket reads
 * whose ArrayBuffers count toward that limit once promoted, and every full collection marks the
 * whole ~35 MB heap: with 8 clients the relay ran one every 30–80 screenshots, about 90 with this
 * (docs/decisions.md#item-28). Read by V8 at each limit computation, so setting
 * it at start-up is enough; `node --heap-growing-percent=N` on the command line wins.
 */
export function widenHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
}
