import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { RemoteClient } from '../support/netns';
import { itUnless } from '../support/describe-unless';
import { fakeDns } from './support/webhook-helpers';

/** Every destination form the issue and security.md §1.4 list, with the reason the 400 must give. */
const REFUSED: [string, RegExp][] = [
  // loopback, in every spelling
  ['http://127.0.0.1:1/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.8.9.10/', /loopback/],
  ['http://localhost/', /localhost is a loopback host/],
  ['http://LOCALHOST/', /loopback host/],
  ['http://localhost./', /loopback host/],
  ['http://app.localhost:3000/', /loopback host/],
  ['http://[::1]/', /::1 is a loopback address/],
  ['http://[0:0:0:0:0:0:0:1]/', /loopback/],
  ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f000001/', /127\.0\.0\.1 is a loopback/],
  ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback/],
  ['http://127.1/', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f.1/', /127\.0\.0\.1 is a loopback/],
  ['http://017700000001/', /127\.0\.0\.1 is a loopback/],
  ['http://①②⑦.0.0.1/', /127\.0\.0\.1 is a loopback/],
  ['http://[::ffff:127.0.0.1]/', /IPv6 form of 127\.0\.0\.1, a loopback/],
  ['http://[::ffff:7f00:1]/', /IPv6 form of 127\.0\.0\.1/],
  ['http://[::127.0.0.1]/', /IPv6 form of 127\.0\.0\.1/],
  ['http://evil@127.0.0.1/', /loopback/],
  ['http://127.0.0.1#@example.com/', /loopback/],
  ['http://127.0.0.1:80\\@example.com/', /loopback/],
  // unspecified
  ['http://0/', /0\.0\.0\.0 is an unspecified address/],
  ['http://0.0.0.0:8080/', /unspecified/],
  ['http://[::]/', /unspecified/],
  // link-local and metadata
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
  ['http://169.254.169.254./', /cloud metadata/],
  ['http://0xa9fea9fe/', /cloud metadata/],
  ['http://[::ffff:a9fe:a9fe]/', /IPv6 form of 169\.254\.169\.254, a cloud metadata address/],
  ['http://[::ffff:169.254.169.254]/', /cloud metadata/],
  ['http://169.254.170.2/v2/credentials', /cloud metadata/],
  ['http://169.254.10.20/', /link-local/],
  ['http://[fe80::1]/', /link-local/],
  ['http://[fd00:ec2::254]/', /fd00:ec2::254 is a cloud metadata address/],
  ['http://100.100.100.200/', /cloud metadata/],
  ['http://168.63.129.16/', /cloud metadata/],
  ['http://metadata.google.internal/computeMetadata/v1/', /metadata\.google\.internal is a cloud metadata host/],
  ['http://METADATA.GOOGLE.INTERNAL./', /cloud metadata host/],
  // IPv4 embedded in IPv6 transition forms
  ['http://[64:ff9b::a9fe:a9fe]/', /IPv6 form of 169\.254\.169\.254/],
  ['http://[64:ff9b::127.0.0.1]/', /IPv6 form of 127\.0\.0\.1/],
  ['http://[2002:a9fe:a9fe::1]/', /IPv6 form of 169\.254\.169\.254/],
  ['http://[2002:7f00:1::1]/', /IPv6 form of 127\.0\.0\.1/],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /IPv6 form of 127\.0\.0\.1/],
  ['http://[::ffff:0:7f00:1]/', /IPv6 form of 127\.0\.0\.1/],
  // other special ranges
  ['http://224.0.0.1/', /multicast/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://[ff02::1]/', /multicast/],
  // schemes and malformed URLs
  ['file:///etc/passwd', /only http and https URLs are allowed, not file/],
  ['ftp://10.0.0.5/', /not ftp/],
  ['gopher://10.0.0.5:70/', /not gopher/],
  ['ws://10.0.0.5/', /not ws/],
  ['data:text/plain,hi', /not data/],
  ['javascript:alert(1)', /not javascript/],
  ['not a url', /spaces or control characters/],
  ['/relative/path', /not a valid absolute URL/],
  ['http://10.0.0.5/a\r\nX-Injected: 1', /control characters/],
  ['http://10.0.0.5/a\tb', /control characters/],
  [`http://${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.example/`, /longer than 253/],
  // names whose records are refused (test DNS below)
  ['http://loopback.test/', /loopback\.test resolves to 127\.0\.0\.1, a loopback address/],
  ['http://mixed.test/', /mixed\.test resolves to 127\.0\.0\.1, a loopback address/],
  ['http://v6meta.test/', /resolves to fd00:ec2::254, a cloud metadata address/],
  ['http://mapped.test/', /resolves to ::ffff:169\.254\.169\.254/],
  ['http://nxdomain.test/', /nxdomain\.test could not be resolved \(ENOTFOUND\)/],
];

const ALLOWED = [
  'http://192.168.1.10:8080/h',
  'http://10.0.0.5/',
  'http://172.16.3.4/',
  'http://100.64.1.2/', // CGNAT / Tailscale
  'http://[fd00::5]/',
  'https://93.184.215.14/hook',
  'http://lan.test:8080/h',
  'https://ci.example.test/hooks/svc?token=abc',
];

describe('webhook destinations: the SSRF rule at registration (spec §4, security.md §1.4)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let developer: TestMember;
  let existingId: number;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
    fakeDns(relay, {
      'loopback.test': ['127.0.0.1'],
      'mixed.test': ['10.0.0.7', '127.0.0.1'],
      'v6meta.test': ['10.0.0.8', 'fd00:ec2::254'],
      'mapped.test': ['::ffff:169.254.169.254'],
      'lan.test': ['192.168.50.4', 'fd12::4'],
      'ci.example.test': ['93.184.215.14'],
    });
    existingId = (await members.as(developer, 'post', '/api/v1/webhooks').send({ url: 'http://10.0.0.9/' }).expect(201)).body.id;
  });
  afterAll(() => relay.close());

  it.each(REFUSED)('POST %j → 400', async (url, reason) => {
    const res = await members.as(developer, 'post', '/api/v1/webhooks').send({ url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Webhook URL refused: /) });
    expect(res.body.error).toMatch(reason);
  });

  it.each(REFUSED)('PATCH url %j → 400, and the webhook keeps its URL', async (url, reason) => {
    const res = await members.as(developer, 'patch', `/api/v1/webhooks/${existingId}`).send({ url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(reason);
    const list = await members.as(developer, 'get', '/api/v1/webhooks').expect(200);
    expect(list.body.webhooks.find((w: { id: number }) => w.id === existingId).url).toBe('http://10.0.0.9/');
  });

  it.each(ALLOWED)('private LAN and public destinations are allowed: %s → 201', async (url) => {
    const res = await members.as(developer, 'post', '/api/v1/webhooks').send({ url });
    expect(res.status).toBe(201);
    expect(res.body.url).toBe(url);
  });

  // The own-host address is the test LAN's host side, which lives as long as the jest run: an
  // interface address read from the machine may belong to another checkout's run, gone by the time the relay looks.
  itUnless(
    RemoteClient.unavailableReason(),
    "refuses an address of the relay's own host (a LAN address that is this machine)",
    async () => {
      const lan = RemoteClient.create();
      try {
        const own = lan.hostAddress;
        const res = await members.as(developer, 'post', '/api/v1/webhooks').send({ url: `http://${own}:8080/` });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/address of the relay's own host/);
        fakeDns(relay, { 'me.test': ['10.0.0.1', own] });
        const byName = await members.as(developer, 'post', '/api/v1/webhooks').send({ url: 'http://me.test/' });
        expect(byName.body.error).toMatch(/me\.test resolves to .*own host/);
        // The peer inside the namespace is another machine on the LAN: allowed.
        const peer = await members.as(developer, 'post', '/api/v1/webhooks').send({ url: `http://${lan.peerAddress}:8080/` });
        expect(peer.status).toBe(201);
      } finally {
        lan.destroy();
      }
    },
  );
});
