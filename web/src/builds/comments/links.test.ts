import { describe, expect, it } from 'vitest';
import { linkParts } from './links';

describe('linkParts', () => {
  it('finds http and https addresses, leaving sentence punctuation outside', () => {
    expect(linkParts('See https://ci.example.com/run/42. Also http://x.io/a?b=1&c=2, ok')).toEqual([
      { text: 'See ' },
      { url: 'https://ci.example.com/run/42' },
      { text: '. Also ' },
      { url: 'http://x.io/a?b=1&c=2' },
      { text: ', ok' },
    ]);
    expect(linkParts('(https://en.wikipedia.org/wiki/Foo_(bar))')).toEqual([
      { text: '(' },
      { url: 'https://en.wikipedia.org/wiki/Foo_(bar)' },
      { text: ')' },
    ]);
  });

  it('leaves other schemes and markup as text', () => {
    expect(linkParts('javascript:alert(1) <a href="x">y</a> ftp://x')).toEqual([{ text: 'javascript:alert(1) <a href="x">y</a> ftp://x' }]);
    expect(linkParts('https://x.io/"><script>')).toEqual([{ url: 'https://x.io/' }, { text: '"><script>' }]);
    expect(linkParts('')).toEqual([]);
  });
});
