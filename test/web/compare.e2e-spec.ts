import type { Browser, BrowserContext } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { npmApk } from '../builds/contents-tools';

/**
 * Beside the verdict (issue 28 item 3), in Chromium: two released ApiDemos builds (4.1.1 then
 * 5.0.0, from npm) show the flags and the size breakdown on the build page, the inbox carries the
 * "⚑ 4" badge and filters on it, and the Apps page draws the app's sizes.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: comparison beside the verdict', () => {
  let relay: TestRelay;
  let browser: Browser;
  let context: BrowserContext;
  let watched: WatchedPage;
  let dev: TestMember;
  const ids: number[] = [];
  /** Every GET /builds/:id/compare the pages made: only ever for a build that exists. */
  const compares: string[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    const members = new MemberFactory(relay);
    dev = await members.member('Developer');
    for (const alias of ['apidemos-4', 'apidemos-5']) {
      const file = npmApk(alias, 'ApiDemos-debug.apk');
      const res = await members.as(dev, 'post', '/api/v1/builds').attach('file', readFileSync(file), `${alias}.apk`).expect(201);
      ids.push(res.body.id);
    }
    browser = await launchChromium();
    context = await newContext(browser);
    watched = await signedInPage(context, relay.url, dev.cookie);
    context.on('request', (req) => {
      if (/\/compare\?/.test(req.url())) compares.push(new URL(req.url()).search);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => {
    // No request expected to fail: the browser would log its 404 (the contents say which earlier builds exist).
    expect(watched.problems.splice(0)).toEqual([]);
  });

  it('the build page: compared with the previous build, flags on top in plain sentences, the breakdown as a table of bars', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/builds/${ids[1]}`);
    await page.getByRole('heading', { name: `Compared with build ${ids[0]}` }).waitFor();
    const flags = page.getByRole('list', { name: '4 flags' });
    await expect(flags.getByRole('listitem').allInnerTexts()).resolves.toEqual([
      '⚑ Adds permission android.permission.POST_NOTIFICATIONS',
      '⚑ Adds permission io.appium.android.apis.DYNAMIC_RECEIVER_NOT_EXPORTED_PERMISSION',
      expect.stringMatching(/^⚑ Grows \+[\d.]+ MB \(\+27\.\d %\)$/),
      '⚑ Signed with another certificate: updates over the earlier build will not install',
    ]);
    const breakdown = page.getByRole('table', { name: 'Size by category' });
    await expect(breakdown.getByRole('rowheader', { name: 'Dex code' }).count()).resolves.toBe(1);
    await expect(breakdown.getByRole('columnheader').allInnerTexts()).resolves.toEqual(['Category', 'Bar', 'Uncompressed', 'Compressed', 'Change']);
    await expect(page.locator('dt', { hasText: 'Certificate SHA-256' }).count()).resolves.toBe(1);
    await expect(page.getByText('POST_NOTIFICATIONS new').count()).resolves.toBeGreaterThan(0);
    await screenshotBothThemes(page, 'build-contents', true);
  });

  it('the switch compares with the last Done build; with none Done, it says so without asking', async () => {
    const { page } = watched;
    await page.getByRole('radio', { name: 'Last Done build' }).check();
    await page.getByText(`No build of the same app and platform uploaded before build ${ids[1]} is Done`).waitFor();
    await page.getByRole('radio', { name: 'Previous build' }).check();
    await page.getByRole('list', { name: '4 flags' }).waitFor();
    expect([...new Set(compares)]).toEqual([`?to=${ids[0]}`]);
  });

  it('the first build of the app: "nothing to compare with" in words, and no comparison requested', async () => {
    const { page } = watched;
    compares.length = 0;
    await page.goto(`${relay.url}/builds/${ids[0]}`);
    await page.getByText('First build of this app on Android: nothing to compare with').waitFor();
    await page.getByRole('table', { name: 'Size by category' }).waitFor();
    await page.getByRole('radio', { name: 'Last Done build' }).check();
    await page.getByText(`No build of the same app and platform uploaded before build ${ids[0]} is Done`).waitFor();
    expect(compares).toEqual([]);
    await page.goto(`${relay.url}/builds/${ids[1]}`);
    await page.getByRole('list', { name: '4 flags' }).waitFor();
  });

  it('a Developer edits the comparison settings: with new permissions not flagged, the page shows two fewer flags', async () => {
    const { page } = watched;
    await page.getByText('Comparison settings for this app').click();
    const form = page.getByRole('form', { name: 'Comparison settings' });
    await form.getByLabel('Flag every new permission').uncheck();
    await form.getByLabel('Watched permissions').fill('android.permission.POST_NOTIFICATIONS');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const flags = page.getByRole('list', { name: '3 flags' });
    await expect(flags.getByRole('listitem').first().innerText()).resolves.toBe('⚑ Adds permission android.permission.POST_NOTIFICATIONS (watched)');
  });

  it('the inbox: a "⚑ 4" badge with the reasons, and "Flagged only" lists just that build', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/builds`);
    const badge = page.getByRole('img', { name: /^4 flags: New permission android\.permission\.POST_NOTIFICATIONS/ });
    await expect(badge.innerText()).resolves.toBe('⚑ 4');
    await expect(badge.getAttribute('title')).resolves.toContain('Signing certificate changed');
    await expect(page.getByRole('img', { name: /flags?:/ }).count()).resolves.toBe(1);
    // A controlled checkbox follows the URL, which changes a moment after the click.
    await page.getByLabel('Flagged only').click();
    await page.waitForURL(/flagged=true/);
    await page.getByText('1 build', { exact: true }).waitFor();
    await expect(page.getByLabel('Flagged only').isChecked()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'API Demos' }).count()).resolves.toBe(1);
  });

  it('the Apps page: the app\'s size over its builds, the figures in a table for screen readers', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/apps`);
    await page.getByText(/Size over the last 2 builds: [\d.]+ MB now, \+27\.\d % since 4\.1\.1/).waitFor();
    const table = page.getByRole('table', { name: "File size of API Demos's last builds" });
    await expect(table.getByRole('row').count()).resolves.toBe(3);
  });

  it.each(['light', 'dark'] as const)('the build page at 375 px (%s): no sideways scrolling', async (scheme) => {
    const phone = await newContext(browser, { viewport: { width: 375, height: 760 }, colorScheme: scheme, storageState: await context.storageState() });
    const page = await phone.newPage();
    await page.goto(`${relay.url}/builds/${ids[1]}`);
    await page.getByRole('table', { name: 'Size by category' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    await phone.close();
  });
});
