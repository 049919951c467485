import { readyLine } from '../../src/bootstrap/ready-line';
import { OidcStub } from '../support/oidc-stub';
import { startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';
import { MemberFactory } from '../support/factory';
import { useTestRelay, withTestRelay } from '../support/use-relay';

const WARNINGS = '/api/v1/relay/warnings';
const LOOPBACK_WARNING = 'relay.url http://127.0.0.1:4950 is loopback: not used for links';
const warningsLogged = (relay: TestRelay) =>
  relay.logger.buffer
    .tail(500)
    .map((line) => JSON.parse(line) as { level: string; context: string; msg: string })
    .filter((entry) => entry.level === 'warn' && entry.context === 'PublicUrl');

/**
 * Issue 40 item 3: one canonical origin (docs/deploy.md "One public address"). A relay.url nobody
 * else can open is said to be unused, at start-up and on the Relay page; the OIDC redirect URI is
 * the origin links use; /signin and the SSO start route on another host go there first.
 */
describe('one canonical origin', () => {
  describe('a loopback relay.url', () => {
    const ctx = useTestRelay({ SVC_RELAY_URL: 'http://127.0.0.1:4950' });

    it('is named in a start-up warning, below the ready line, and to Admins on the Relay page (GET /relay/warnings)', async () => {
      expect(warningsLogged(ctx.relay).map((e) => e.msg)).toEqual([expect.stringContaining(LOOPBACK_WARNING)]);
      const admin = await ctx.members.admin();
      const lines = (await readyLine(ctx.relay.app, ctx.relay.config, ctx.relay.port)).split('\n');
      expect(lines).toEqual([`Relay ready at http://localhost:${ctx.relay.port}/`, expect.stringContaining(`Warning: ${LOOPBACK_WARNING}`)]);
      const { body } = await ctx.members.as(admin, 'get', WARNINGS).expect(200);
      expect(body).toEqual({ warnings: [expect.stringContaining(LOOPBACK_WARNING)], lan_reason: 'bound to 127.0.0.1' });
      expect(body.warnings[0]).toContain('Set SVC_RELAY_URL to an address teammates can open');
      const developer = await ctx.members.member('Developer');
      await ctx.members.as(developer, 'get', WARNINGS).expect(403);
      await ctx.relay.http().get(WARNINGS).expect(401);
    });
  });

  it('a relay.url teammates can open: no warning, and it is the start-up address', async () => {
    await withTestRelay({ SVC_RELAY_URL: 'https://relay.example.com' }, async (relay, members) => {
      expect(warningsLogged(relay)).toEqual([]);
      const admin = await members.admin();
      expect((await members.as(admin, 'get', WARNINGS).expect(200)).body).toEqual({ warnings: [], lan_reason: 'bound to 127.0.0.1' });
      expect(await readyLine(relay.app, relay.config, relay.port)).toBe('Relay ready at https://relay.example.com');
    });
  });

  describe('GET /signin', () => {
    const ctx = useTestRelay({ SVC_RELAY_URL: 'https://relay.example.com' });

    it('on another host goes to the same path on the canonical origin', async () => {
      const res = await ctx.relay.http().get('/signin?next=%2Fteam').set('Host', '192.0.2.10:8080').expect(302);
      expect(res.headers.location).toBe('https://relay.example.com/signin?next=%2Fteam');
    });

    it('stays on the canonical host (a proxy or tunnel may end TLS without telling the relay), on the relay host itself, and behind a proxy that hid the host', async () => {
      await ctx.relay.http().get('/signin').set('Host', 'relay.example.com').expect(503); // the dashboard's page (not built in these tests)
      await ctx.relay.http().get('/signin').expect(503); // 127.0.0.1: the first Admin and the log are opened here
      await ctx.relay.http().get('/signin').set('Host', '127.0.0.1:8080').set('X-Forwarded-For', '192.0.2.7').expect(503);
    });
  });

  describe('OIDC', () => {
    let stub: OidcStub;
    beforeAll(async () => {
      stub = await new OidcStub().start();
    });
    afterAll(() => stub?.close());

    const withOidcRelay = async (env: Record<string, string>, body: (relay: TestRelay) => Promise<void>) => {
      const relay = await startSsoRelay(
        { oidc: { issuer: stub.issuer, clientId: stub.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', roles: { Admin: ['relay-admins'] } } },
        { TEST_OIDC_SECRET: stub.clientSecret, ...env },
      );
      try {
        await new MemberFactory(relay).admin();
        await body(relay);
      } finally {
        await relay.close();
      }
    };
    const redirectUri = (location: string) => new URL(location).searchParams.get('redirect_uri');

    it('a loopback relay.url is not the redirect URI: the origin the browser is on is, so the flow cookie comes back', async () => {
      await withOidcRelay({ SVC_RELAY_URL: 'http://127.0.0.1:4950' }, async (relay) => {
        const res = await relay.http().get('/api/v1/auth/oidc/login').expect(302);
        expect(redirectUri(res.headers.location)).toBe(`${relay.url}/api/v1/auth/oidc/callback`);
      });
    });

    it('the SSO start route on another host goes to the canonical origin first, with no flow cookie; there the redirect URI is the canonical one', async () => {
      await withOidcRelay({ SVC_RELAY_URL: 'https://relay.example.com' }, async (relay) => {
        const elsewhere = await relay.http().get('/api/v1/auth/oidc/login?next=%2Fbuilds').expect(302);
        expect(elsewhere.headers.location).toBe('https://relay.example.com/api/v1/auth/oidc/login?next=%2Fbuilds');
        expect(elsewhere.headers['set-cookie']).toBeUndefined();
        const there = await relay.http().get('/api/v1/auth/oidc/login?next=%2Fbuilds').set('Host', 'relay.example.com').expect(302);
        expect(redirectUri(there.headers.location)).toBe('https://relay.example.com/api/v1/auth/oidc/callback');
        expect(String(there.headers['set-cookie'])).toContain('svc_oidc=');
      });
    });

    it('with a tunnel and a relay.url, links and the redirect URI both take the tunnel', async () => {
      await withOidcRelay({ SVC_RELAY_URL: 'https://relay.example.com', SVC_TUNNEL_URL: 'https://abc.trycloudflare.com' }, async (relay) => {
        const res = await relay.http().get('/api/v1/auth/oidc/login').set('Host', 'abc.trycloudflare.com').expect(302);
        expect(redirectUri(res.headers.location)).toBe('https://abc.trycloudflare.com/api/v1/auth/oidc/callback');
      });
    });
  });
});
