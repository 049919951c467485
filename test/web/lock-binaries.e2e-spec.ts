import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { lockProblems } = require('../../scripts/check-lock-binaries.js') as { lockProblems: (lock: unknown) => string[] };

/** scripts/check-lock-binaries.js (run by npm test): the lock keeps the bundler's Linux bindings. */
describe('package-lock.json native bindings check', () => {
  const lock = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package-lock.json'), 'utf8'));

  it('passes on the committed lock file', () => {
    expect(lockProblems(lock)).toEqual([]);
  });

  it('fails when a Linux binding of rolldown or lightningcss is dropped or out of step', () => {
    const doctored = structuredClone(lock);
    delete doctored.packages['node_modules/@rolldown/binding-linux-x64-gnu'];
    doctored.packages['node_modules/lightningcss-linux-arm64-musl'].version = '0.0.1';
    expect(lockProblems(doctored)).toEqual([
      expect.stringMatching(/^@rolldown\/binding-linux-x64-gnu is missing/),
      expect.stringMatching(/^lightningcss-linux-arm64-musl is 0\.0\.1/),
    ]);
    delete doctored.packages['node_modules/rolldown'];
    expect(lockProblems(doctored)[0]).toMatch(/rolldown is not in the lock file/);
  });
});
