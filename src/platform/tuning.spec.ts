import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TUNING } from './tuning';

describe('TUNING', () => {
  it.each(TUNING.map((policy) => [policy.name, policy.where]))('%s lives in %s', (_name, where) => {
    expect(existsSync(join(__dirname, '..', '..', where))).toBe(true);
  });

  it('names each policy once', () => {
    expect(new Set(TUNING.map((policy) => policy.name)).size).toBe(TUNING.length);
  });
});
