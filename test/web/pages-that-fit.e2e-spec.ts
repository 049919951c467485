import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { agentToken, startFakeAgent } from '../agents/agent-kit';
import { auditSettled } from '../audit/audit-support';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, watchedPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { images } from '../support/images';
import { corpIdpConfig, freePort } from '../support/oidc-provider';
import { startSsoRelay } from '../support/sso-relay';
import { type TestRelay } from '../support/test-relay';

const AGENT = 'fit';
const PHONE = { width: 375, height: 812 };

/** Where an element is in the window, as the browser lays it out. */
const box = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width, innerHeight: window.innerHeight, innerWidth: window.innerWidth };
  });

/**
 * Issue 40 item 7 in Chromium: the device's picture fits the window (1280×900 and 375 px wide), the
 * audit table's Details fit at 1280 px, a phone's build page leads with Install, a phone's inbox
 * shows the first build near the top, webhooks, forges and chat share an Integrations page (the old
 * /webhooks lands there), and sign-in shows the team with single sign-on, "or", and the password.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: pages that fit (issue 40 item 7)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let agent: AgentDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    // Single sign-on configured (its provider is never asked: only the sign-in page's button is looked at).
    relay = await startSsoRelay({ oidc: corpIdpConfig(await freePort()) }, { SVC_WEB_DIR: WEB_DIST, TEST_OIDC_SECRET: 'unused-secret-0123456789' });
    members = new MemberFactory(relay);
    admin = await members.admin();
    await members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Acme Mobile QA').attach('logo', images.logo(), 'logo.png').expect(200);
    agent = await startFakeAgent(relay, await agentToken(members), AGENT);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await relay?.close();
  });

  afterEach(async () => {
    for (const watched of pages.splice(0)) expect(watched.problems).toEqual([]);
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function open(viewport: { width: number; height: number }, cookie: string | null = admin.cookie): Promise<Page> {
    const context = await newContext(browser, { viewport });
    contexts.push(context);
    const watched = cookie ? await signedInPage(context, relay.url, cookie) : await watchedPage(context);
    // Signed out, the dashboard asks who is signed in before it shows the sign-in page.
    if (!cookie) watched.allow.push(/Failed to load resource: the server responded with a status of 401/);
    pages.push(watched);
    return watched.page;
  }

  it.each([
    ['1280×900', { width: 1280, height: 900 }],
    ['375 px wide', PHONE],
  ])('the device picture fits the window at %s', async (name, viewport) => {
    const page = await open(viewport);
    await page.goto(`${relay.url}/devices/fake-android-${AGENT}`);
    await page.getByRole('img', { name: 'Screen of Pixel 8' }).waitFor();
    // Sized from the picture's ratio once it is loaded.
    await page.waitForFunction(() => !!document.querySelector('figure [style*="--screen-ratio"]'));
    if (viewport.width <= 640) await screenshotBothThemes(page, 'device-fits-375px');
    const screen = await box(page, 'figure [style*="--screen-ratio"]');
    expect(screen.height).toBeLessThanOrEqual(screen.innerHeight);
    expect(screen.right).toBeLessThanOrEqual(screen.innerWidth);
    // On a wide window the whole device is in view without scrolling.
    if (viewport.width > 640) expect(screen.bottom).toBeLessThanOrEqual(screen.innerHeight);
    // Nothing past the right edge (a row of device buttons once was).
    const wide = await page.evaluate((w) => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1).map((e) => `${e.tagName} ${e.textContent}`).slice(0, 8), viewport.width);
    expect(wide).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
  });

  it('the audit table fits 1280 px, Details wrapped rather than cut', async () => {
    await members.as(admin, 'patch', '/api/v1/settings').field('team_name', `Acme Mobile QA ${'and friends '.repeat(12).trim()}`).expect(200);
    await members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Acme Mobile QA').expect(200);
    await auditSettled(relay);
    const page = await open({ width: 1280, height: 900 });
    await page.goto(`${relay.url}/audit`);
    const table = page.getByRole('table', { name: 'Audit entries' });
    await table.getByText(/and friends/).first().waitFor();
    const fit = await table.evaluate((t) => ({ table: t.scrollWidth, wrap: t.parentElement!.clientWidth }));
    expect(fit.table).toBeLessThanOrEqual(fit.wrap);
    const details = await box(page, 'table[aria-label="Audit entries"] tbody tr td:last-child');
    expect(details.right).toBeLessThanOrEqual(1280);
  });

  it('on a phone the build page leads with Install, the QR code folded away', async () => {
    const build = await uploadTestBuild(members, admin);
    const page = await open(PHONE);
    await page.goto(`${relay.url}/builds/${build.id}`);
    await page.getByRole('heading', { name: 'Install', exact: true }).waitFor();
    const install = page.getByRole('link', { name: 'Install the APK' });
    const link = await install.boundingBox();
    expect(link!.y + link!.height).toBeLessThanOrEqual(PHONE.height);
    expect(await page.getByRole('img', { name: /^QR code of the download link/ }).isVisible()).toBe(false);
    await page.getByText('QR code, for another phone').click();
    await page.getByRole('img', { name: /^QR code of the download link/ }).waitFor();
    await page.getByText('QR code, for another phone').click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshotBothThemes(page, 'build-phone-install');
  });

  it('on a phone the inbox shows the first build near the top: filters folded, no drop zone', async () => {
    for (let i = 0; i < 3; i++) await uploadTestBuild(members, admin);
    const page = await open(PHONE);
    await page.goto(`${relay.url}/builds`);
    const first = page.getByRole('row').nth(1);
    await first.waitFor();
    await screenshotBothThemes(page, 'inbox-375px');
    const row = (await first.boundingBox())!;
    expect(row.y).toBeLessThan(PHONE.height * 0.4);
    expect(await page.getByRole('combobox', { name: 'Status' }).isVisible()).toBe(false);
    await page.getByText('Filters', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('Done');
    await page.getByText('Filters (1 in use)').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await page.getByText('Filters', { exact: true }).click();
    expect(await page.getByText('Drop .apk, .app.zip or .tar.gz files anywhere here, or').isVisible()).toBe(false);
    await page.getByText('Upload a build…').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });

  it('webhooks, forges and chat are on the Integrations page; the old /webhooks lands there', async () => {
    const page = await open({ width: 1280, height: 900 });
    await page.goto(`${relay.url}/webhooks`);
    await page.waitForURL(`${relay.url}/integrations`);
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    for (const name of ['Webhooks', 'Forges: review verdicts as commit statuses', 'Chat']) await page.getByRole('heading', { name, level: 2 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).count()).toBe(1);
    await screenshotBothThemes(page, 'integrations', true);
  });

  it('sign-in shows the team\'s name and logo, single sign-on, "or", then the password', async () => {
    const brand = (await relay.http().get('/api/v1/settings/brand').expect(200)).body;
    expect(brand).toEqual({ team_name: 'Acme Mobile QA', logo_data_url: `data:image/png;base64,${images.logo().toString('base64')}` });
    const page = await open({ width: 1280, height: 900 }, null);
    await page.goto(`${relay.url}/signin`);
    await page.getByText('Acme Mobile QA').waitFor();
    const logo = page.locator('main img').first();
    await page.waitForFunction(() => {
      const img = document.querySelector('main img') as HTMLImageElement | null;
      return !!img && img.src.startsWith('data:image/png') && img.complete && img.naturalWidth === 64;
    });
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const sso = page.getByRole('link', { name: 'Sign in with Corp IdP' });
    const or = page.getByRole('separator', { name: 'or' });
    const email = page.getByLabel('E-mail');
    const [a, b, c] = [(await sso.boundingBox())!, (await or.boundingBox())!, (await email.boundingBox())!];
    expect(a.y).toBeLessThan(b.y);
    expect(b.y).toBeLessThan(c.y);
    await screenshotBothThemes(page, 'signin-sso');
  });
});
