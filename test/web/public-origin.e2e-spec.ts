import type { Browser } from 'playwright-core';
import { UsersService } from '../../src/users/users.service';
import {
  browserSkipReason,
  ensureWebBuilt,
  launchChromium,
  newContext,
  screenshot,
  screenshotBothThemes,
  signedInPage,
  watchedPage,
  WEB_DIST,
} from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory } from '../support/factory';
import { corpIdpConfig, freePort, startOidcProvider, TEST_PROVIDER_SECRET, type TestOidcProvider } from '../support/oidc-provider';
import { startSsoRelay } from '../support/sso-relay';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/** A second name for the test relay, resolved by Chromium alone: the canonical origin, not the 127.0.0.1 the browser starts on. */
const CANONICAL_HOST = 'relay.test';

/** Chromium's note on every page of a plain-HTTP origin other than localhost (the relay sends COOP; it counts over HTTPS only). */
const COOP_IGNORED = /Cross-Origin-Opener-Policy header has been ignored, because the URL's origin was untrustworthy/;

const ACCOUNTS = {
  'u-bob': { email: 'bob@corp.example', email_verified: true, name: 'Bob', groups: ['relay-admins'] },
  'u-dave': { email: 'dave@corp.example', email_verified: true, name: 'Dave' },
};

/**
 * Issue 40 items 3 and 4 in Chromium: the Relay page says a loopback relay.url is not used; an SSO
 * sign-in begun on another origin than the canonical one finishes there (it used to fail with "not
 * started from this browser"); the default scopes bring the groups of a provider that releases
 * them only for a `groups` scope; a refusal names the claim read and the groups received.
 */
describeUnless(browserSkipReason(), 'one canonical origin and SSO that explains itself, in the browser (issue 40)', () => {
  let browser: Browser;
  beforeAll(async () => {
    ensureWebBuilt();
    browser = await launchChromium([`--host-resolver-rules=MAP ${CANONICAL_HOST} 127.0.0.1`]);
  }, 180_000);
  afterAll(() => browser?.close());

  it('the Relay page warns that a loopback relay.url is not used for links', async () => {
    const relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_RELAY_URL: 'http://127.0.0.1:4950' });
    const context = await newContext(browser);
    try {
      const admin = await new MemberFactory(relay).admin();
      const watched = await signedInPage(context, relay.url, admin.cookie);
      const { page } = watched;
      await page.goto(`${relay.url}/relay`);
      await page.getByRole('heading', { name: 'Addresses' }).waitFor();
      await page.getByRole('alert').filter({ hasText: 'relay.url http://127.0.0.1:4950 is loopback: not used for links' }).waitFor();
      await page.getByText('None: set SVC_RELAY_URL').waitFor();
      await screenshotBothThemes(page, 'relay-loopback-url');
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
      await relay.close();
    }
  }, 60_000);

  describe('with an OpenID provider that releases groups only for the "groups" scope', () => {
    let relay: TestRelay;
    let provider: TestOidcProvider;
    let canonical: string;
    beforeAll(async () => {
      const [relayPort, providerPort] = [await freePort(), await freePort()];
      canonical = `http://${CANONICAL_HOST}:${relayPort}`;
      relay = await startSsoRelay(
        { oidc: corpIdpConfig(providerPort) },
        { TEST_OIDC_SECRET: TEST_PROVIDER_SECRET, SVC_WEB_DIR: WEB_DIST, SVC_PORT: String(relayPort), SVC_RELAY_URL: canonical },
      );
      provider = await startOidcProvider({ port: providerPort, relayUrl: canonical, accounts: ACCOUNTS });
      // A relay with an account shows the sign-in page, not the first run's.
      await new MemberFactory(relay).admin();
    }, 60_000);
    afterAll(async () => {
      await relay?.close();
      await provider?.close();
    });

    it('a sign-in begun on 127.0.0.1 finishes on the canonical origin, and the Admin-group member is an Admin', async () => {
      await provider.loginAs('u-bob');
      const context = await newContext(browser);
      try {
        const watched = await watchedPage(context);
        watched.allow.push(COOP_IGNORED);
        const { page } = watched;
        await page.goto(`${relay.url}/signin?next=${encodeURIComponent('/team')}`);
        await page.getByRole('link', { name: 'Sign in with Corp IdP' }).click();
        await page.waitForURL(`${canonical}/team`);
        await page.getByRole('heading', { name: 'Team' }).waitFor();
        expect((await context.cookies(canonical)).find((c) => c.name === 'svc_token')).toBeDefined();
        expect((await relay.app.get(UsersService).findByEmail('bob@corp.example'))!.role).toBe('Admin');
        expect(watched.problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);

    it('a member the provider sends no groups for sees the claim read, the groups received and how to fix it', async () => {
      await provider.loginAs('u-dave');
      const context = await newContext(browser);
      try {
        const watched = await watchedPage(context);
        // The refusal page is the callback's 403 answer.
        watched.allow.push(COOP_IGNORED, /status of 403 \(Forbidden\) \(http:\/\/relay\.test:\d+\/api\/v1\/auth\/oidc\/callback\?/);
        const { page } = watched;
        await page.goto(`${canonical}/signin`);
        await page.getByRole('link', { name: 'Sign in with Corp IdP' }).click();
        await page.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
        expect(new URL(page.url()).origin).toBe(canonical);
        const text = await page.getByRole('main').innerText();
        expect(text).toContain('The relay read the claim "groups" and received no groups.');
        expect(text).toContain('adds the scope that releases "groups" to sso.oidc.scopes');
        // The refusal page has one theme.
        await screenshot(page, 'sso-refused-no-groups');
        expect(watched.problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  });
});
