import { UsersService } from '../../src/users/users.service';
import { auditEntries } from '../audit/audit-support';
import { MemberFactory, sessionCookieFrom } from '../support/factory';
import { corpIdpConfig, freePort, startOidcProvider, TEST_PROVIDER_SECRET, type TestOidcProvider } from '../support/oidc-provider';
import { oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

const ACCOUNTS = {
  'u-bob': { email: 'bob@corp.example', email_verified: true, name: 'Bob', groups: ['relay-admins'] },
};

/**
 * For the enclosing describe: a relay with the default scopes (no `scopes` in sso.oidc) in front of
 * the certified provider, which releases `groups` only for `groupsScope`.
 */
function useRelayAndProvider(groupsScope: string | null): { relay: TestRelay; provider: TestOidcProvider } {
  const ctx = {} as { relay: TestRelay; provider: TestOidcProvider };
  beforeAll(async () => {
    const port = await freePort();
    ctx.relay = await startSsoRelay({ oidc: corpIdpConfig(port) }, { TEST_OIDC_SECRET: TEST_PROVIDER_SECRET });
    ctx.provider = await startOidcProvider({ port, relayUrl: ctx.relay.url, accounts: ACCOUNTS, groupsScope });
  }, 60_000);
  afterAll(async () => {
    await ctx.relay?.close();
    await ctx.provider?.close();
  });
  return ctx;
}

/** The text of the refusal page's message (the page escapes quotes). */
const pageText = (html: string) => html.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));

/**
 * Issue 40 item 4: providers that release `groups` only for a `groups` scope (Okta, Authentik, Dex,
 * oidc-provider) sent none with the default scopes, so even an Admin-group member was refused.
 */
describe('OIDC: the role claim released only for its own scope', () => {
  describe('a provider that advertises a "groups" scope', () => {
    const ctx = useRelayAndProvider('groups');

    it('is asked for it with the default scopes, and an Admin-group member signs in as an Admin', async () => {
      const { relay, provider } = ctx;
      const start = await relay.http().get('/api/v1/auth/oidc/login').expect(302);
      expect(new URL(start.headers.location).searchParams.get('scope')).toBe('openid email profile groups');

      await provider.loginAs('u-bob');
      const res = await oidcSignInWithoutBrowser(relay, '/team');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/team');
      const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(res.headers['set-cookie'])).expect(200)).body;
      expect(me).toMatchObject({ email: 'bob@corp.example', role: 'Admin' });
    });
  });

  describe('a provider that releases groups under a scope of another name', () => {
    const ctx = useRelayAndProvider('directory');

    it('the refusal page and its audit entry name the claim read and the groups received (none), and say how to fix it', async () => {
      const { relay, provider } = ctx;
      const start = await relay.http().get('/api/v1/auth/oidc/login').expect(302);
      expect(new URL(start.headers.location).searchParams.get('scope')).toBe('openid email profile');

      await provider.loginAs('u-bob');
      const res = await oidcSignInWithoutBrowser(relay);
      expect(res.status).toBe(403);
      const text = pageText(res.text);
      expect(text).toContain('Your account at Corp IdP is in no group that gives a role on this relay');
      expect(text).toContain('The relay read the claim "groups" and received no groups.');
      expect(text).toContain('adds the scope that releases "groups" to sso.oidc.scopes, or sets sso.oidc.roleClaim');
      expect(await relay.app.get(UsersService).findByEmail('bob@corp.example')).toBeNull();

      const members = new MemberFactory(relay);
      const refused = await auditEntries({ relay, members }, await members.admin(), 'action=auth.sign_in_failed');
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({
        actor: 'bob@corp.example',
        details: { method: 'oidc', reason: 'no_role', groups_from: 'claim "groups"', groups_received: 0, groups: '[]' },
      });
    });
  });
});
