import { describe, expect, it } from 'vitest';
import { bulkSummary, rangeBetween, runLimited } from './bulk';

describe('acting on several builds', () => {
  it('runs every item at most `limit` at once and keeps each outcome in order', async () => {
    let running = 0;
    let most = 0;
    const outcomes = await runLimited([1, 2, 3, 4, 5, 6, 7], async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5 * (8 - n)));
      running--;
      if (n % 3 === 0) throw new Error(`no ${n}`);
    }, 3);
    expect(most).toBe(3);
    expect(outcomes.map((o) => (o.ok ? o.item : `${o.item}: ${o.error}`))).toEqual([1, 2, '3: no 3', 4, 5, '6: no 6', 7]);
  });

  it('sums up what happened, naming the failures', async () => {
    const outcomes = await runLimited(['a', 'b', 'c'], async (s) => {
      if (s !== 'a') throw new Error('Build not found');
    });
    expect(bulkSummary(outcomes, 'set to Done', (s) => s.toUpperCase())).toBe('1 set to Done, 2 failed: B (Build not found); C (Build not found)');
    expect(bulkSummary(outcomes.slice(0, 1), 'set to Done', String)).toBe('1 set to Done');
    const many = await runLimited([1, 2, 3, 4, 5], async () => Promise.reject(new Error('x')));
    expect(bulkSummary(many, 'scheduled', String)).toBe('0 scheduled, 5 failed: 1 (x); 2 (x); 3 (x); and 2 more');
  });

  it('selects a range from the anchor to the clicked row, either way', () => {
    const ids = [10, 11, 12, 13, 14];
    expect(rangeBetween(ids, 11, 13)).toEqual([11, 12, 13]);
    expect(rangeBetween(ids, 14, 12)).toEqual([12, 13, 14]);
    expect(rangeBetween(ids, null, 12)).toEqual([12]);
    expect(rangeBetween(ids, 99, 12)).toEqual([12]);
  });
});
