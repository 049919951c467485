import { randomInt } from 'node:crypto';
import { MAX_NORMALIZED_ADDRESSES, normalizeIp } from './ip-address';

const KNOWN: [string | undefined | null, string | null][] = [
  ['127.0.0.1', '127.0.0.1'],
  ['::ffff:127.0.0.1', '127.0.0.1'],
  ['::ffff:10.1.2.3', '10.1.2.3'],
  ['[::1]', '::1'],
  ['0:0:0:0:0:0:0:1', '::1'],
  ['fe80::1%eth0', 'fe80::1'],
  ['2001:DB8::A', '2001:db8::a'],
  ['localhost', null],
  ['300.1.1.1', null],
  ['', null],
  [undefined, null],
  [null, null],
  [`${'1'.repeat(70)}.1.1.1`, null],
];

describe('normalizeIp', () => {
  it('gives the same answer asked once, again, and after the remembered ones were started over', () => {
    const expectKnown = () => expect(KNOWN.map(([address]) => normalizeIp(address))).toEqual(KNOWN.map(([, ip]) => ip));
    expectKnown();
    expectKnown();
    // Many more distinct addresses than it keeps (IPv4, mapped IPv6, garbage), then the known ones again.
    const flood = Array.from({ length: MAX_NORMALIZED_ADDRESSES * 3 }, (_, i) =>
      i % 3 === 0 ? `10.${randomInt(256)}.${randomInt(256)}.${i % 256}` : i % 3 === 1 ? `::ffff:192.168.${randomInt(256)}.${i % 256}` : `host-${i}`,
    );
    for (const address of flood) {
      const expected = address.startsWith('host-') ? null : address.replace('::ffff:', '');
      expect([address, normalizeIp(address)]).toEqual([address, expected]);
      expect([address, normalizeIp(address)]).toEqual([address, expected]);
    }
    expectKnown();
  });
});
