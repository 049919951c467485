import { runWithProcessPieces } from '../../../test/support/process-pieces-child';

/**
 * V8's pretenuring decisions (its --trace-pretenuring-statistics "=> tenure" lines) in a child
 * process whose objects outlive young collections, as a loaded relay's request objects did, with
 * the engine room's 'process' pieces installed or not.
 */
function tenureDecisions(nodeArgs: string[], installProcessPieces: boolean): number {
  const script = `
    require('node:v8').setFlagsFromString('--trace-pretenuring-statistics');
    const ring = new Array(200000);
    let i = 0;
    const make = (i) => ({ i, a: [i, i], o: { i } });
    const step = () => {
      for (let k = 0; k < 20000; k++, i++) ring[i % ring.length] = make(i);
      if (i < 2000000) setImmediate(step);
    };
    step();
  `;
  const out = runWithProcessPieces(script, nodeArgs, installProcessPieces);
  return [...out.matchAll(/=> tenure\b/g)].length;
}

/**
 * V8 takes the decision in some runs and not others (about half of them here, as the relay under
 * load did): a side that must pretenure gets up to ATTEMPTS runs to do it once, and the pieces must
 * stop it in as many runs, so a piece that did nothing would pass only if V8 happened to decide
 * nothing in all of them.
 */
const ATTEMPTS = 6;

function anyTenured(nodeArgs: string[], installProcessPieces: boolean): boolean {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) if (tenureDecisions(nodeArgs, installProcessPieces) > 0) return true;
  return false;
}

describe('the allocation-site pretenuring piece', () => {
  it('V8 alone pretenures the sites whose objects outlive young collections', () => {
    expect(anyTenured([], false)).toBe(true);
  });

  it("the 'process' pieces turn it off", () => {
    expect(anyTenured([], true)).toBe(false);
  });

  it('leaves the command line its say', () => {
    expect(anyTenured(['--allocation-site-pretenuring'], true)).toBe(true);
  });
});
