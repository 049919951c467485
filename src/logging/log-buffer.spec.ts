import { LogBuffer } from './log-buffer';

describe('LogBuffer', () => {
  it('keeps the newest lines, oldest first, before and after it wraps', () => {
    const buffer = new LogBuffer(3);
    buffer.push('a');
    buffer.push('b');
    expect(buffer.tail(5)).toEqual(['a', 'b']);
    for (const line of ['c', 'd', 'e']) buffer.push(line);
    expect(buffer.tail(3)).toEqual(['c', 'd', 'e']);
    expect(buffer.tail(2)).toEqual(['d', 'e']);
    buffer.push('f');
    buffer.push('g');
    expect(buffer.tail(10)).toEqual(['e', 'f', 'g']);
  });
});
