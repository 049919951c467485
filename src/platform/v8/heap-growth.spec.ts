import { runWithProcessPieces } from '../../../test/support/process-pieces-child';

/**
 * The growing factors V8 chose at each full collection (its --trace-gc-verbose "Limit" lines) in a
 * child process shaped like the relay under the mixed load: a few tens of MB kept alive and a high
 * rate of short-lived JS objects. Left to itself V8 picks its maximum factor, 4, for that. The
 * factor is checked through the engine room's piece list (runWithProcessPieces).
 */
function growingFactors(nodeArgs: string[], installProcessPieces: boolean): number[] {
  // Traced from here on only: loading ts-node and the pieces runs collections of its own first.
  const script = `
    require('node:v8').setFlagsFromString('--trace-gc-verbose');
    const ring = new Array(200000);
    let i = 0;
    const step = () => {
      for (let k = 0; k < 20000; k++, i++) ring[i % ring.length] = { i, s: 'x' + i, a: [i, i] };
      if (i < 3000000) setImmediate(step);
    };
    step();
  `;
  const out = runWithProcessPieces(script, nodeArgs, installProcessPieces);
  return [...out.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d+)\)/g)].map((m) => Number(m[1]));
}

describe('the heap growing factor piece', () => {
  it('V8 alone grows this heap 4× between full collections', () => {
    const factors = growingFactors([], false);
    expect(factors.length).toBeGreaterThanOrEqual(2);
    expect(factors.every((factor) => factor === 4)).toBe(true);
  });

  it("the 'process' pieces cap it at 1.5×", () => {
    const factors = growingFactors([], true);
    expect(factors.length).toBeGreaterThanOrEqual(2);
    expect(factors.every((factor) => factor === 1.5)).toBe(true);
  });

  it('leaves a factor given on the command line alone', () => {
    const factors = growingFactors(['--heap-growing-percent=10'], true);
    expect(factors.length).toBeGreaterThan(2);
    expect(factors.every((factor) => factor === 1.1)).toBe(true);
  });
});
