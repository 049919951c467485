import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import {
  browserSkipReason,
  ensureWebBuilt,
  launchChromium,
  newContext,
  screenshotBothThemes,
  signedInPage,
  waitFor,
  watchedPage,
  WEB_DIST,
  type WatchedPage,
} from '../support/browser';
import { fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { images } from '../support/images';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const APK = 'string-label.apk';
const LOOPBACK_WARNING = 'Only an address of this computer is known';
const SIMULATOR_BUILD = 'xml-root.app.zip';
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';

/**
 * Issue 24 item 1 in headless Chromium: the build page's links for a phone use the relay's public
 * URL (and warn when only loopback is known), and a share link opened on a 375 px phone without
 * an account shows the install page and downloads the build.
 */
describeUnless(browserSkipReason(), 'share links and install links in the browser (issue 24)', () => {
  let browser: Browser;
  const opened: WatchedPage[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) expect(w.problems).toEqual([]);
    for (const c of contexts.splice(0)) await c.close();
  });

  async function relayWithBuild(env: Record<string, string>): Promise<{ relay: TestRelay; developer: TestMember; buildId: number }> {
    const relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, ...env });
    const members = new MemberFactory(relay);
    const developer = await members.member('Developer');
    const res = await members
      .as(developer, 'post', '/api/v1/builds')
      .field('label', 'feature/phone')
      .attach('file', readFileSync(fixture(APK)), APK)
      .expect(201);
    return { relay, developer, buildId: res.body.id };
  }

  async function buildPage(relay: TestRelay, member: TestMember, buildId: number): Promise<WatchedPage> {
    const context = await newContext(browser);
    contexts.push(context);
    const watched = await signedInPage(context, relay.url, member.cookie);
    opened.push(watched);
    await watched.page.goto(`${relay.url}/builds/${buildId}`);
    await watched.page.getByRole('heading', { name: 'Share' }).waitFor();
    return watched;
  }

  describe('a relay that knows only its loopback address', () => {
    let relay: TestRelay;
    let developer: TestMember;
    let buildId: number;
    let shareUrl: string;
    const inContainer = process.env.SVC_IN_CONTAINER;

    beforeAll(async () => {
      // No LAN address either (as in a container): the page's own 127.0.0.1 is all there is.
      process.env.SVC_IN_CONTAINER = '1';
      ({ relay, developer, buildId } = await relayWithBuild({}));
    }, 60_000);

    afterAll(async () => {
      if (inContainer === undefined) delete process.env.SVC_IN_CONTAINER;
      else process.env.SVC_IN_CONTAINER = inContainer;
      await relay?.close();
    });

    it('the download QR and a new share link use the loopback address, with the warning; Download sits above recordings', async () => {
      const { page } = await buildPage(relay, developer, buildId);
      await page.getByRole('img', { name: `QR code of the download link ${relay.url}/api/v1/builds/${buildId}/download` }).waitFor();
      await page.getByRole('alert').filter({ hasText: `${LOOPBACK_WARNING} (${relay.url}): a phone or a teammate cannot open this download link` }).waitFor();
      // Install comes before the recordings and comments in the page (one column on a phone).
      const order = await page.evaluate(() =>
        ['download-title', 'share-title', 'recordings-title'].map((id) => document.getElementById(id)!.getBoundingClientRect().top),
      );
      expect(order[0]).toBeLessThan(order[2]);
      expect(order[1]).toBeLessThan(order[2]);

      await page.getByLabel('Expires after').selectOption('14');
      await page.getByRole('button', { name: 'Create share link' }).click();
      const field = page.getByLabel('Share link', { exact: true });
      await field.waitFor();
      shareUrl = await field.inputValue();
      expect(shareUrl).toMatch(new RegExp(`^${relay.url.replace(/\./g, '\\.')}/install/[0-9a-f]{64}$`));
      await page.getByRole('img', { name: `QR code of the share link ${shareUrl}` }).waitFor();
      await page.getByRole('alert').filter({ hasText: 'cannot open this share link' }).waitFor();
      await page.getByRole('list', { name: 'Share links' }).getByText('0 downloads').waitFor();
    });

    it('a phone without an account opens the share link at 375 px, sees the app and downloads the APK', async () => {
      const phone = await newContext(browser, { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
      contexts.push(phone);
      const watched = await watchedPage(phone);
      opened.push(watched);
      const { page } = watched;
      await page.goto(shareUrl);
      await page.getByRole('heading', { name: 'Résumé Viewer' }).waitFor();
      await page.getByText('2.0.0-beta (7)').waitFor();
      await page.getByText('feature/phone').waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await screenshotBothThemes(page, 'share-install-375px');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /^Download the APK/ }).click()]);
      expect(download.suggestedFilename()).toBe(APK);
      expect(Buffer.compare(readFileSync((await download.path())!), readFileSync(fixture(APK)))).toBe(0);

      const { page: writerPage } = await buildPage(relay, developer, buildId);
      await writerPage.getByRole('list', { name: 'Share links' }).getByText('1 download', { exact: true }).waitFor();
      await screenshotBothThemes(writerPage, 'share-panel');
    });
  });

  /** Issue 40 item 2: a live link copied again after a reload; the install page a team sends. */
  describe('a relay that keeps links sealed (SVC_SECRETS_KEY), on its loopback address', () => {
    let relay: TestRelay;
    let developer: TestMember;
    let iosBuildId: number;
    let shareUrl: string;
    const inContainer = process.env.SVC_IN_CONTAINER;

    beforeAll(async () => {
      process.env.SVC_IN_CONTAINER = '1';
      relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_SECRETS_KEY: randomBytes(32).toString('base64') });
      const members = new MemberFactory(relay);
      const admin = await members.member('Admin');
      await members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Acme Mobile QA').attach('logo', images.logo(), 'logo.png').expect(200);
      developer = await members.member('Developer');
      const res = await members
        .as(developer, 'post', '/api/v1/builds')
        .field('label', 'release/2.1')
        .field('changelog', 'New sign-in screen: try a wrong password, then the reset link.\nDark mode on the settings page.')
        .attach('file', readFileSync(fixture(SIMULATOR_BUILD)), SIMULATOR_BUILD)
        .expect(201);
      iosBuildId = res.body.id;
    }, 60_000);

    afterAll(async () => {
      if (inContainer === undefined) delete process.env.SVC_IN_CONTAINER;
      else process.env.SVC_IN_CONTAINER = inContainer;
      await relay?.close();
    });

    it('after a reload the share panel copies a live link again, in a field as wide as the card (no clipped `/` reading as a comma)', async () => {
      const context = await newContext(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
      contexts.push(context);
      const watched = await signedInPage(context, relay.url, developer.cookie);
      opened.push(watched);
      const { page } = watched;
      await page.goto(`${relay.url}/builds/${iosBuildId}`);
      await page.getByLabel('Download limit (optional)').fill('5');
      await page.getByRole('button', { name: 'Create share link' }).click();
      const created = page.getByLabel('Share link', { exact: true });
      await created.waitFor();
      shareUrl = await created.inputValue();
      expect(shareUrl).toMatch(new RegExp(`^${relay.url.replace(/\./g, '\\.')}/install/[0-9a-f]{64}$`));
      await page.getByText('You can copy it again from the list below while it works.').waitFor();

      await page.reload();
      const list = page.getByRole('list', { name: 'Share links' });
      await list.getByText('0 downloads of 5').waitFor();
      expect(await page.getByLabel('Share link', { exact: true }).count()).toBe(0);
      const field = list.getByLabel('Link', { exact: true });
      expect(await field.inputValue()).toBe(shareUrl);
      // The field spans the card and shows the address past the host, not `http://127.0.0.1:port,`.
      const [fieldBox, listBox] = [await field.boundingBox(), await list.boundingBox()];
      expect(fieldBox!.width).toBeGreaterThan(listBox!.width * 0.7);
      const shown = await field.evaluate((input: HTMLInputElement) => input.clientWidth / (input.scrollWidth / input.value.length));
      expect(shown).toBeGreaterThan(`${relay.url}/install/`.length);
      await list.getByRole('button', { name: 'Copy Link' }).click();
      await list.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shareUrl);
      await screenshotBothThemes(page, 'share-panel-resend');
    });

    it("an Android phone at 375 px sees the team, what to test above the button, times in its zone, and that it cannot install an iOS build", async () => {
      const phone = await newContext(browser, {
        viewport: { width: 375, height: 812 },
        isMobile: true,
        hasTouch: true,
        userAgent: ANDROID_UA,
        locale: 'en-US',
        timezoneId: 'Asia/Tokyo',
      });
      contexts.push(phone);
      const watched = await watchedPage(phone);
      opened.push(watched);
      const { page } = watched;
      await page.goto(shareUrl);
      await page.getByText('Shared by Acme Mobile QA').waitFor();
      expect(await page.locator('.team img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      const whatToTest = page.getByRole('heading', { name: 'What to test' });
      await page.getByText('New sign-in screen: try a wrong password, then the reset link.').waitFor();
      const button = page.getByRole('link', { name: /^Download the simulator build/ });
      expect((await whatToTest.boundingBox())!.y).toBeLessThan((await button.boundingBox())!.y);
      const sentence = page.getByRole('note').filter({ hasText: 'This Android phone cannot install this build' });
      expect((await sentence.boundingBox())!.y).toBeLessThan((await button.boundingBox())!.y);
      // Times rewritten in the phone's zone (Tokyo, UTC+9) by the page's own script.
      const expiry = page.locator('.expiry time');
      await waitFor(async () => ((await expiry.textContent()) ?? '').includes('GMT+9'));
      expect(await expiry.textContent()).not.toContain('UTC');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await screenshotBothThemes(page, 'share-install-team-375px', true);
    });
  });

  describe('a relay with relay.url', () => {
    const PUBLIC_URL = 'https://relay.example.com';
    let relay: TestRelay;
    let developer: TestMember;
    let buildId: number;

    beforeAll(async () => {
      ({ relay, developer, buildId } = await relayWithBuild({ SVC_RELAY_URL: PUBLIC_URL }));
    }, 60_000);

    afterAll(async () => {
      await relay?.close();
    });

    it('the download QR and the share link use the public URL, without a warning', async () => {
      const { page } = await buildPage(relay, developer, buildId);
      // The relay's addresses arrive after the page: the QR is redrawn with the public URL.
      await page.getByRole('img', { name: `QR code of the download link ${PUBLIC_URL}/api/v1/builds/${buildId}/download` }).waitFor();
      await page.getByRole('button', { name: 'Create share link' }).click();
      const field = page.getByLabel('Share link', { exact: true });
      await field.waitFor();
      expect(await field.inputValue()).toMatch(/^https:\/\/relay\.example\.com\/install\/[0-9a-f]{64}$/);
      expect(await page.getByRole('alert').count()).toBe(0);
    });
  });
});
