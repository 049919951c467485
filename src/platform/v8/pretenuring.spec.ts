import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * V8's pretenuring decisions (its --trace-pretenuring-statistics "=> tenure" lines) in a child
 * process whose objects outlive young collections, as a loaded relay's request objects did.
 * `installProcessPieces` installs the engine room's 'process' phase as startRelayProcess does for
 * `npm start` and `svc relay`: dropping the piece from the list, or from the phase, fails here.
 */
function tenureDecisions(nodeArgs: string[], installProcessPieces: boolean): number {
  const install = `require(${JSON.stringify(join(__dirname, '..', 'install.ts'))}).installPlatform('process', { listening: new Promise(() => {}) });`;
  const script = `
    ${installProcessPieces ? install : ''}
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
  const out = execFileSync(process.execPath, [...nodeArgs, '-r', 'ts-node/register/transpile-only', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [...out.matchAll(/=> tenure\b/g)].length;
}

describe('the allocation-site pretenuring piece', () => {
  it('V8 alone pretenures the sites whose objects outlive young collections', () => {
    expect(tenureDecisions([], false)).toBeGreaterThan(0);
  });

  it("the 'process' pieces turn it off", () => {
    expect(tenureDecisions([], true)).toBe(0);
  });

  it('leaves the command line its say', () => {
    expect(tenureDecisions(['--allocation-site-pretenuring'], true)).toBeGreaterThan(0);
  });
});
