import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring (`--no-allocation-site-pretenuring`) unless the
 * command line says either way. V8 watches where objects are allocated and, when most objects of
 * one site outlive a young collection, allocates that site's objects in the old generation from then
 * on. Under load some sites on the relay's request path crossed that line: from then on each
 * request's old-generation objects pointed at its young ones (the request, the response, their
 * headers and closures), and an old object is a root for every young collection until a full one
 * frees it, so each request's whole graph was copied out of the young generation and promoted,
 * though it died milliseconds later. Measured on the smallest answer: 3.9 KB promoted a request
 * against 2-3 B with the flag, scavenge pauses 558 -> 117-148 ms and full collections 14 -> 2 in 6 s
 * (docs/decisions.md#issue-42-pretenuring). The bare Nest and Express stack promotes 1 B a request
 * either way: what tipped it is the relay's own allocation sites, and which ones moves with any
 * change, so the flag rather than a change to one site. Read by V8 at each young collection's
 * feedback, so setting it at start-up, before any request, is enough.
 */
export function stopAllocationSitePretenuring(): void {
  if (process.execArgv.some((arg) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(arg))) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
