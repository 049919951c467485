import { isOlder } from './forge-outbox.repository';

describe('isOlder (svc/release-gate made from older gates than the newest queued one)', () => {
  it('is older when any build of both is at an earlier version', () => {
    expect(isOlder({ 1: 2, 2: 3 }, JSON.stringify({ 1: 2, 2: 4 }))).toBe(true);
    expect(isOlder({ 1: 3 }, JSON.stringify({ 1: 4 }))).toBe(true);
  });

  it('is not older at the same or later versions, or against a row without versions', () => {
    expect(isOlder({ 1: 4, 2: 4 }, JSON.stringify({ 1: 4, 2: 3 }))).toBe(false);
    expect(isOlder({ 1: 4 }, JSON.stringify({ 1: 4 }))).toBe(false);
    expect(isOlder({ 1: 1 }, null)).toBe(false);
  });

  it('says nothing about builds only one side knows (uploaded or deleted between)', () => {
    expect(isOlder({ 1: 2, 3: 1 }, JSON.stringify({ 1: 2, 2: 7 }))).toBe(false);
  });
});
