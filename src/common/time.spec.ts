import fc from 'fast-check';
import { isoWithMillis } from './time';

describe('isoWithMillis', () => {
  it('writes exactly what toISOString() writes, for every millisecond from 1970 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => isoWithMillis(new Date(ms)) === new Date(ms).toISOString()),
      { numRuns: 200_000 },
    );
  });

  it.each([
    0, // the epoch
    951_782_399_999, // 2000-02-28T23:59:59.999Z, before a leap day of a year divisible by 400
    951_782_400_000, // 2000-02-29
    4_107_542_400_000, // 2100-03-01: no 29 February in 2100
    1_767_225_599_999, // the last millisecond of 2025
    253_402_300_799_999, // 9999-12-31T23:59:59.999Z
  ])('%i', (ms) => expect(isoWithMillis(new Date(ms))).toBe(new Date(ms).toISOString()));

  it('leaves years before 1970 and past 9999, and invalid dates, to toISOString()', () => {
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000]) expect(isoWithMillis(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => isoWithMillis(new Date(NaN))).toThrow(RangeError);
  });
});
