import type { Piece } from '../piece';
import { v8Version } from '../packages';
import { capHeapGrowth } from './heap-growth';
import { keepCodeWhileIdle } from './memory-reducer';
import { stopAllocationSitePretenuring } from './pretenuring';
import { releaseStartUpMemory } from './start-up-memory';
import { exposeYoungScavenge } from './young-scavenge';

/** Node 20.20's V8; the flags and options below are V8's, read against this version. */
const CHECKED = { node: '20.20.2' } as const;
const V8 = ['11.3.244.8'];

const heapGrowth: Piece<'process'> = {
  name: 'v8 heap growing factor',
  changes: 'sets V8 --heap-growing-percent=50 at start-up (unless the command line gives one): the old generation grows 1.5x between full collections',
  why: 'mixed load: peak RSS 372 -> 220 MB, committed heap 248 -> 122 MB, CPU per request unchanged (docs/decisions.md#issue-27-memory)',
  checkedAgainst: CHECKED,
  phase: 'process',
  fingerprint: v8Version,
  expected: V8,
  install: () => capHeapGrowth(),
};

const pretenuring: Piece<'process'> = {
  name: 'v8 allocation-site pretenuring off',
  changes: 'sets V8 --no-allocation-site-pretenuring at start-up (unless the command line says either way): every object starts young',
  why: "pretenured sites on the request path made each request's graph outlive young collections: 3.9 KB promoted a request -> 2-3 B, scavenge pauses and full collections a quarter (docs/decisions.md#issue-42-pretenuring)",
  checkedAgainst: CHECKED,
  phase: 'process',
  fingerprint: v8Version,
  expected: V8,
  install: () => stopAllocationSitePretenuring(),
};

const memoryReducer: Piece<'boot'> = {
  name: 'v8 memory reducer off',
  changes: 'sets V8 --gc-memory-reducer-start-delay-ms to its maximum at start-up (unless the command line names the reducer): no heap-shrinking collections when the relay goes idle',
  why: "they dropped the object shapes of the request path and ~390 optimised functions with them, recompiled on the next requests: PostgreSQL soak A/B, relay CPU a request 1.12 -> 1.00 ms on average (lower in 3 of 4 pairs), full collections 7-10 -> 6 (docs/decisions.md#issue-42-memory-reducer)",
  checkedAgainst: CHECKED,
  phase: 'boot',
  fingerprint: v8Version,
  expected: V8,
  install: () => keepCodeWhileIdle(),
};

const startUpMemory: Piece<'process'> = {
  name: 'v8 start-up memory release',
  changes: "sends V8's low-memory notification (inspector HeapProfiler.collectGarbage) in the first quiet second after listen, or at once past 112 MB of heap in use",
  why: 'idle RSS 136 -> 98 MB at once instead of after ~30 s; under load from the start, soak peak RSS 315-320 -> 238-239 MB (docs/decisions.md#s2)',
  checkedAgainst: CHECKED,
  phase: 'process',
  fingerprint: v8Version,
  expected: V8,
  install: ({ listening, logger }) => void listening.then(() => releaseStartUpMemory(logger)),
};

/**
 * 'app', not 'process': uploads spool in whatever process serves them, test relays included, as
 * they did when the scavenge was taken on the first upload.
 */
const youngScavenge: Piece<'app'> = {
  name: 'v8 young scavenge while spooling',
  changes: "takes V8's gc through --expose-gc set and unset at run time; file-spool calls gc({ type: 'minor' }) every 2 MB spooled",
  why: 'the socket buffers of an upload die young: peak RSS of 500 MB x 3 uploads +45-52 MB -> +13-21 MB (docs/decisions.md#item-18, items 18-19)',
  checkedAgainst: CHECKED,
  phase: 'app',
  fingerprint: v8Version,
  expected: V8,
  install: () => exposeYoungScavenge(),
};

export const pieces = [heapGrowth, pretenuring, memoryReducer, startUpMemory, youngScavenge];
