import type { Browser, BrowserContext } from 'playwright-core';
import { UsersService } from '../../src/users/users.service';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, watchedPage, WEB_DIST } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { sessionCookieFrom } from '../support/factory';
import { freePort, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

const ACCOUNTS = {
  'u-ada': { email: 'ada@corp.example', email_verified: true, name: 'Ada Lovelace', groups: ['mobile-devs', 'qa'] },
  'u-bob': { email: 'bob@corp.example', email_verified: true, name: 'Bob', groups: ['relay-admins'] },
  'u-carol': { email: 'carol@corp.example', email_verified: true, name: 'Carol', groups: ['sales'] },
};

/**
 * OpenID Connect sign-in against the certified provider (`oidc-provider`, in a child process:
 * test/support/oidc-provider.mjs) on loopback: discovery, code + PKCE (the provider requires it),
 * client_secret_basic, ID token and userinfo (which is where this provider puts the groups), and
 * the whole flow in Chromium from the sign-in page's "Sign in with …" button to the dashboard.
 */
describe('OIDC sign-in with oidc-provider', () => {
  let provider: TestOidcProvider;
  let relay: TestRelay;

  beforeAll(async () => {
    const port = await freePort();
    relay = await startSsoRelay(
      {
        oidc: {
          issuer: `http://127.0.0.1:${port}`,
          clientId: 'svc-relay',
          clientSecretEnv: 'TEST_OIDC_SECRET',
          scopes: ['openid', 'email', 'profile', 'groups'],
          name: 'Corp IdP',
          roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'], QA: ['qa'] },
        },
      },
      { TEST_OIDC_SECRET: 'provider-test-secret-0123456789', SVC_WEB_DIR: WEB_DIST },
    );
    provider = await startOidcProvider({ port, relayUrl: relay.url, accounts: ACCOUNTS });
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    await provider?.close();
  });

  it('provisions the member with the role of their groups (read at userinfo) and signs them in', async () => {
    await provider.loginAs('u-ada');
    const res = await oidcSignInWithoutBrowser(relay, '/builds');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/builds');
    const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(res.headers['set-cookie'])).expect(200)).body;
    expect(me).toMatchObject({ email: 'ada@corp.example', role: 'Developer', displayName: 'Ada Lovelace' });
  });

  it('a person in no mapped group is refused with a page', async () => {
    await provider.loginAs('u-carol');
    const res = await oidcSignInWithoutBrowser(relay);
    expect(res.status).toBe(403);
    expect(res.text).toContain('Corp IdP is in no group that gives a role');
    expect(await relay.app.get(UsersService).findByEmail('carol@corp.example')).toBeNull();
  });

  describeUnless(browserSkipReason(), 'in Chromium', () => {
    let browser: Browser;
    let context: BrowserContext;
    beforeAll(async () => {
      ensureWebBuilt();
      browser = await launchChromium();
    }, 180_000);
    afterAll(async () => {
      await context?.close();
      await browser?.close();
    });

    it('"Sign in with Corp IdP" → provider → back to the page asked for, signed in; a SCIM token from Team settings; signing out goes through the provider', async () => {
      await provider.loginAs('u-bob');
      context = await newContext(browser);
      const watched = await watchedPage(context);
      const { page } = watched;
      // The provider's own sign-out page has no icon: Chromium's request for one is the provider's 404, not the relay's.
      watched.allow.push(new RegExp(`404.*\\(${provider.issuer.replace(/[.]/g, '\\.')}/favicon\\.ico\\)`));
      const outside: string[] = [];
      page.on('request', (request) => {
        const host = new URL(request.url()).hostname;
        if (host !== '127.0.0.1') outside.push(request.url());
      });
      await page.goto(`${relay.url}/signin?next=${encodeURIComponent('/team')}`);
      await page.getByRole('link', { name: 'Sign in with Corp IdP' }).click();
      await page.waitForURL(`${relay.url}/team`);
      await page.getByRole('heading', { name: 'Team' }).waitFor();
      const cookies = await context.cookies(relay.url);
      expect(cookies.find((c) => c.name === 'svc_token')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect((await relay.app.get(UsersService).findByEmail('bob@corp.example'))!.role).toBe('Admin');

      // The Admin gives the identity provider a SCIM token from Team settings; it works once, then is listed.
      await page.goto(`${relay.url}/settings`);
      await page.getByLabel('Token name').fill('Corp IdP SCIM');
      await page.getByRole('button', { name: 'Create SCIM token' }).click();
      const scimToken = await page.getByLabel('SCIM token', { exact: true }).inputValue();
      expect(scimToken).toMatch(/^svc_scim_[\w-]{43}$/);
      await page.getByRole('list', { name: 'SCIM tokens' }).getByRole('listitem', { name: 'Corp IdP SCIM' }).waitFor();
      const config = await fetch(`${relay.url}/scim/v2/ServiceProviderConfig`, { headers: { Authorization: `Bearer ${scimToken}` } });
      expect(config.status).toBe(200);

      await page.getByRole('button', { name: /^Account: / }).click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.waitForURL(`${relay.url}/signin`);
      await page.getByRole('link', { name: 'Sign in with Corp IdP' }).waitFor();
      expect((await context.cookies(relay.url)).find((c) => c.name === 'svc_token')).toBeUndefined();
      expect(outside).toEqual([]);
      expect(watched.problems).toEqual([]);
    }, 60_000);
  });
});
