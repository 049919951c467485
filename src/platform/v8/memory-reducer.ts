import { setFlagsFromString } from 'node:v8';

/** V8's largest value for the delay (an int of milliseconds): 24.8 days. */
const NEVER_MS = 2 ** 31 - 1;

/**
 * Keeps V8's memory reducer from running while the relay is up, unless the command line says
 * anything of it (`--[no-]memory-reducer`, `--gc-memory-reducer-start-delay-ms`).
 * The reducer watches for a process that has stopped allocating and, seconds in, runs full
 * collections that shrink the heap. Those collections drop every map (object shape) no live object
 * has any more, where an ordinary one keeps such maps for two more collections
 * (`MarkCompactCollector::RetainMaps`: not while reducing memory), and optimised code that relied
 * on a dropped map is thrown away. A relay idle for a minute between bursts of load lost ~390
 * optimised functions at once that way (`--log-deopt`, reason "weak objects": its request path,
 * Node's streams and HTTP, pg, yauzl) and paid V8's compiler for all of them again on the next
 * requests (docs/decisions.md#issue-42-memory-reducer). `--no-memory-reducer` is read only when the
 * heap is set up, before any JavaScript runs; the reducer's start delay is read each time it would
 * start, so at start-up it is set as far off as V8 allows. Without the reducer an idle relay keeps
 * the heap its last load left (the soak: RSS ~165 MB idle, where the reducer took it to ~140) until
 * load returns; the start-up release (start-up-memory.ts) sends its own low-memory notification and
 * is unchanged.
 */
export function keepCodeWhileIdle(): void {
  if (process.execArgv.some((arg) => /^--(?:(?:no-)?memory[-_]reducer|gc[-_]memory[-_]reducer[-_]start[-_]delay[-_]ms)(?:=|$)/.test(arg))) return;
  setFlagsFromString(`--gc-memory-reducer-start-delay-ms=${NEVER_MS}`);
}
