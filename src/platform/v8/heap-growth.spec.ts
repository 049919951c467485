import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The growing factors V8 chose at each full collection (its --trace-gc-verbose "Limit" lines) in a
 * child process shaped like the relay under screenshots: a small JS heap, little JS allocation, and
 * 64 kB buffers that live long enough to be promoted. V8 then picks a small factor (1.5 here) from
 * its GC and mutator speeds, the buffers fill that headroom, and full collections follow each other.
 */
function growingFactors(nodeArgs: string[]): number[] {
  const script = `
    require(${JSON.stringify(join(__dirname, 'heap-growth.ts'))}).widenHeapGrowth();
    const ring = new Array(300);
    let i = 0;
    const step = () => {
      for (let k = 0; k < 50; k++, i++) ring[i % ring.length] = Buffer.alloc(65536);
      if (i < 12000) setTimeout(step, 1);
    };
    step();
  `;
  const out = execFileSync(process.execPath, [...nodeArgs, '--trace-gc-verbose', '-r', 'ts-node/register/transpile-only', '-e', script], {
    encoding: 'utf8',
  });
  return [...out.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d+)\)/g)].map((m) => Number(m[1]));
}

describe('widenHeapGrowth', () => {
  it('makes V8 grow the old generation 4× between full collections', () => {
    const factors = growingFactors([]);
    // With the 4× headroom V8 needs only a few full collections for this much: at least two to read.
    expect(factors.length).toBeGreaterThanOrEqual(2);
    expect(factors.every((factor) => factor === 4)).toBe(true);
  });

  it('leaves a factor given on the command line alone', () => {
    const factors = growingFactors(['--heap-growing-percent=10']);
    expect(factors.length).toBeGreaterThan(2);
    expect(factors.every((factor) => factor === 1.1)).toBe(true);
  });
});
