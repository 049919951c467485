import { describe, expect, it } from 'vitest';
import { countdown, fileSize, relativeTime } from './format';

const now = Date.parse('2026-01-10T12:00:00.000Z');

describe('format', () => {
  it('says how long ago or until', () => {
    expect(relativeTime('2026-01-10T09:00:00.000Z', now)).toBe('3 hours ago');
    expect(relativeTime('2026-01-12T12:00:00.000Z', now)).toBe('in 2 days');
    expect(relativeTime('2026-01-10T11:59:30.000Z', now)).toBe('just now');
    // A 7-day invitation seen a moment after it was made, and a build 2½ hours old.
    expect(relativeTime(new Date(now + 7 * 86400_000 - 1000).toISOString(), now)).toBe('in 7 days');
    expect(relativeTime('2026-01-10T09:30:00.000Z', now)).toBe('3 hours ago');
  });

  it('counts down to the deletion', () => {
    expect(countdown('2026-01-17T14:30:00.000Z', now)).toBe('7d 2h 30m');
    expect(countdown('2026-01-10T13:05:09.000Z', now)).toBe('1h 5m 9s');
    expect(countdown('2026-01-10T12:00:42.000Z', now)).toBe('0m 42s');
    expect(countdown('2026-01-10T11:00:00.000Z', now)).toBe('now');
  });

  it('sizes files', () => {
    expect(fileSize(512)).toBe('512 B');
    expect(fileSize(1536)).toBe('1.5 KB');
    expect(fileSize(42 * 1024 * 1024)).toBe('42 MB');
  });
});
