import { networkInterfaces } from 'node:os';
import { runningInContainer } from '../../src/relay/relay-host-details.service';
import { useTestRelay, withTestRelay } from '../support/use-relay';

const HOST = '/api/v1/relay/host';
const LIMITS = '/api/v1/relay/limits';

const interfaceAddresses = () => Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((e) => e.address));

describe('GET /relay/host and GET /relay/limits', () => {
  const ctx = useTestRelay();

  it('200 { lanHost, port, publicBaseUrl, agentRelayUrl } for a signed-in member; port is the bound one', async () => {
    const viewer = await ctx.members.member('Viewer');
    // Other checkouts' test runs may add and remove their test LANs meanwhile: the address may be one that existed only
    // around the request, so the machine's addresses are read on both sides of it.
    const before = interfaceAddresses();
    const res = await ctx.members.as(viewer, 'get', HOST).expect(200);
    const own = [...before, ...interfaceAddresses()];
    expect(Object.keys(res.body).sort()).toEqual(['agentRelayUrl', 'lanHost', 'port', 'publicBaseUrl']);
    expect(res.body.port).toBe(ctx.relay.port);
    expect(res.body.publicBaseUrl).toBeNull();
    if (runningInContainer()) {
      expect(res.body.lanHost).toBeNull();
    } else if (res.body.lanHost !== null) {
      expect(own).toContain(res.body.lanHost);
      expect(res.body.agentRelayUrl).toBe(`ws://${res.body.lanHost}:${ctx.relay.port}/api/v1/agent/connect`);
    }
  });

  // Issue 40: a relay bound to loopback is on no LAN, whatever the machine's interfaces; the Relay page says why.
  it('bound to 127.0.0.1 (as test relays are): no lanHost, and /relay/warnings gives "bound to 127.0.0.1" as the reason', async () => {
    const admin = await ctx.members.admin();
    expect((await ctx.members.as(admin, 'get', HOST).expect(200)).body).toMatchObject({ lanHost: null, agentRelayUrl: null });
    const warnings = await ctx.members.as(admin, 'get', '/api/v1/relay/warnings').expect(200);
    expect(warnings.body.lan_reason).toBe('bound to 127.0.0.1');
  });

  it.each([HOST, LIMITS])('%s: 401 without a cookie; a PAT is not accepted', async (path) => {
    const res = await ctx.relay.http().get(path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
    const admin = await ctx.members.admin();
    await ctx.members.withPat(await ctx.members.pat(admin, 'view'), 'get', path).expect(401);
  });

  // beyond the spec, apart from /relay/host so that one keeps the spec's four fields: what the dashboard checks before sending
  it('/relay/limits: 200 { max_build_bytes } for any signed-in member: SVC_MAX_BUILD_BYTES, 500 MB by default', async () => {
    const res = await ctx.members.as(await ctx.members.member('Viewer'), 'get', LIMITS).expect(200);
    expect(res.body).toEqual({ max_build_bytes: 524_288_000 });
  });

  it('/relay/limits follows SVC_MAX_BUILD_BYTES', async () => {
    await withTestRelay({ SVC_MAX_BUILD_BYTES: '1000' }, async (_relay, members) => {
      const res = await members.as(await members.admin(), 'get', LIMITS).expect(200);
      expect(res.body).toEqual({ max_build_bytes: 1000 });
    });
  });
});

describe('relay host details from configuration', () => {
  it('SVC_RELAY_URL gives publicBaseUrl and a wss:// agent URL', async () => {
    await withTestRelay({ SVC_RELAY_URL: 'https://relay.example.com/' }, async (_relay, members) => {
      const res = await members.as(await members.admin(), 'get', HOST).expect(200);
      expect(res.body.publicBaseUrl).toBe('https://relay.example.com');
      expect(res.body.agentRelayUrl).toBe('wss://relay.example.com/api/v1/agent/connect');
    });
  });

  it('a relay URL teammates cannot open (localhost) is not offered', async () => {
    await withTestRelay({ SVC_RELAY_URL: 'http://localhost:8080' }, async (_relay, members) => {
      const res = await members.as(await members.admin(), 'get', HOST).expect(200);
      expect(res.body.publicBaseUrl).toBeNull();
    });
  });

  it('lanHost is null inside a container', async () => {
    const saved = process.env.SVC_IN_CONTAINER;
    process.env.SVC_IN_CONTAINER = '1';
    try {
      await withTestRelay({ SVC_RELAY_URL: 'http://relay.lan:8080' }, async (_relay, members) => {
        const res = await members.as(await members.admin(), 'get', HOST).expect(200);
        expect(res.body.lanHost).toBeNull();
        expect(res.body.agentRelayUrl).toBe('ws://relay.lan:8080/api/v1/agent/connect');
      });
    } finally {
      if (saved === undefined) delete process.env.SVC_IN_CONTAINER;
      else process.env.SVC_IN_CONTAINER = saved;
    }
  });
});
