import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let scavenge: ((options: { type: 'minor' }) => void) | null = null;

/**
 * Takes V8's `gc` for collectYoungGarbage(). V8 has no API for a collection outside `--expose-gc`;
 * the flag set at run time exposes `gc` to the context created while it is set, not to the relay's
 * global scope, and it is unset at once so later contexts and workers get none. Where that fails,
 * collectYoungGarbage() does nothing.
 */
export function exposeYoungScavenge(): void {
  if (scavenge) return;
  try {
    setFlagsFromString('--expose-gc');
    scavenge = runInNewContext('gc') as (options: { type: 'minor' }) => void;
    setFlagsFromString('--no-expose-gc');
  } catch {
    scavenge = null;
  }
}

/**
 * A scavenge (young-generation collection, well under a millisecond with the relay's young
 * generation) so the upload's socket buffers already copied to disk are freed now rather than at
 * V8's next full collection (file-spool.ts). `{ type: 'minor' }` is an undocumented option of V8's
 * `gc`. Nothing until exposeYoungScavenge() has run.
 */
export function collectYoungGarbage(): void {
  scavenge?.({ type: 'minor' });
}
