import { classifyAddress, classifyHostname } from './address-classifier';

describe('classifyAddress', () => {
  const refusedForEveryone: [string, RegExp][] = [
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    ['169.254.169.254', /metadata/],
    ['169.254.170.2', /metadata/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /scoped/],
    ['100.100.100.200', /metadata/],
    ['168.63.129.16', /metadata/],
    ['192.0.0.192', /metadata/],
    ['fd00:ec2::254', /metadata/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['2001:db8::1', /reserved/],
    ['fec0::1', /site-local/],
    ['100::1', /discard/],
    // IPv6 spellings of metadata addresses
    ['::ffff:169.254.169.254', /IPv6 form of 169\.254\.169\.254, a cloud metadata/],
    ['::ffff:a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
    ['::ffff:0:a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
    ['64:ff9b::a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
    ['64:ff9b:1::a9fe:a9fe', /special-purpose IPv6/],
    ['2002:a9fe:a9fe::1', /IPv6 form of 169\.254\.169\.254/],
    // Teredo whose client (inverted last 32 bits) is 169.254.169.254
    ['2001:0:4136:e378:8000:63bf:5601:5601', /IPv6 form of 169\.254\.169\.254/],
    ['::a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
    ['not-an-ip', /not an IP/],
  ];
  it.each(refusedForEveryone)('refuses %s for API and operator endpoints', (address, reason) => {
    expect(classifyAddress(address, 'api')).toMatch(reason);
    expect(classifyAddress(address, 'operator')).toMatch(reason);
  });

  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::'])(
    'refuses loopback %s for the API and allows it for the operator file',
    (address) => {
      expect(classifyAddress(address, 'api')).toMatch(/loopback/);
      expect(classifyAddress(address, 'operator')).toBeNull();
    },
  );

  it.each(['10.0.0.5', '192.168.1.10', '172.16.3.4', '100.64.1.2', 'fd00::5', '8.8.8.8', '2606:4700::1111', '::ffff:10.0.0.5'])(
    'allows LAN and public %s',
    (address) => {
      expect(classifyAddress(address, 'api')).toBeNull();
    },
  );

  it("refuses the relay host's own interface addresses for the API only", () => {
    const own = new Set(['192.168.1.20']);
    expect(classifyAddress('192.168.1.20', 'api', own)).toMatch(/own host/);
    expect(classifyAddress('::ffff:192.168.1.20', 'api', own)).toMatch(/own host/);
    expect(classifyAddress('192.168.1.20', 'operator', own)).toBeNull();
  });
});

describe('classifyHostname', () => {
  it('refuses metadata names for everyone and localhost names for the API', () => {
    expect(classifyHostname('metadata.google.internal', 'operator')).toMatch(/metadata/);
    expect(classifyHostname('localhost', 'api')).toMatch(/loopback/);
    expect(classifyHostname('app.localhost', 'api')).toMatch(/loopback/);
    expect(classifyHostname('localhost', 'operator')).toBeNull();
    expect(classifyHostname('ci.example.com', 'api')).toBeNull();
  });
});
