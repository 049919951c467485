import { describe, expect, it } from 'vitest';
import { noticesText, statusWords } from './status-words';

describe('status words', () => {
  it('names a verdict with who gave it, the others by the spec\'s name', () => {
    expect(statusWords('Done', 'lead')).toBe('Done by lead');
    expect(statusWords('Rejected', 'ann')).toBe('Rejected by ann');
    expect(statusWords('In Progress', 'ann')).toBe('In Progress');
    expect(statusWords(null)).toBe('No status');
  });

  it('names every notice sent, and says when a verdict reached nobody', () => {
    expect(noticesText('Done', 0, 1)).toBe('1 forge status notified');
    expect(noticesText('Rejected', 2, 3)).toBe('2 webhooks and 3 forge statuses notified');
    expect(noticesText('Done', 0, 0)).toBe('no webhook or forge to notify');
    expect(noticesText('In Progress', 0, 0)).toBe('');
  });
});
