import { BUILD_STATUSES, changedToFinal, FINAL_STATUSES, isFinalStatus } from './build-status';

describe('Done and Rejected are final (build-status.ts)', () => {
  it('names exactly Done and Rejected as final', () => {
    expect(BUILD_STATUSES.filter(isFinalStatus)).toEqual(['Done', 'Rejected']);
    expect([...FINAL_STATUSES]).toEqual(['Done', 'Rejected']);
    expect(isFinalStatus(null)).toBe(false);
    expect(isFinalStatus(undefined)).toBe(false);
  });

  it.each([
    [null, 'Done', true],
    ['Backlog', 'Rejected', true],
    ['Done', 'Rejected', true],
    ['Done', 'Done', false],
    ['Done', 'In Progress', false],
    ['Rejected', null, false],
    ['Backlog', 'In Progress', false],
  ] as const)('%s → %s reaches a final status: %s', (previous, next, expected) => {
    expect(changedToFinal(previous, next)).toBe(expected);
  });
});
