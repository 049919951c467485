import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { testLanSkipReason } from '../support/test-lan';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { TestForge } from '../forges/support/forge-server';
import { putForgeOnLan } from '../forges/support/lan-forge';

const TOKEN = 'ghp_browser_token_42';
const SHA = 'c'.repeat(40);

/**
 * Issue 25 in the browser: an Admin adds a forge on the Admin page (Webhooks → Forges), is told
 * at the URL field when the address is refused, sends a test status to the local GitHub on the
 * test LAN, and sees the attempt in the forge's delivery log.
 */
describeUnless(browserSkipReason() ?? testLanSkipReason(), 'dashboard in the browser: forges added by an Admin (issue 25)', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let stopForge: () => Promise<void>;
  let relay: TestRelay;
  let admin: TestMember;
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    ensureWebBuilt();
    stopForge = await putForgeOnLan(forge);
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_SECRETS_KEY: randomBytes(32).toString('base64') });
    admin = await new MemberFactory(relay).admin();
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, admin.cookie);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await stopForge?.();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  it('adds a forge, sends a test status and sees the delivery in its log; the token is never shown', async () => {
    const { page } = watched;
    watched.allow.push(/status of 400/);
    await page.goto(`${relay.url}/webhooks`);
    await page.getByRole('button', { name: 'New forge' }).click();
    const form = page.getByRole('form', { name: 'New forge' });
    await form.getByLabel('Type').selectOption('github');
    await form.getByLabel('API URL').fill('http://127.0.0.1:9/api/v3');
    await form.getByLabel('Repositories').fill('lan/web');
    await form.getByLabel('Token').fill(TOKEN);
    await form.getByRole('button', { name: 'Add forge' }).click();
    await form.getByRole('alert').filter({ hasText: 'Forge URL refused: 127.0.0.1 is a loopback address' }).waitFor();
    expect(await form.getByLabel('API URL').getAttribute('aria-invalid')).toBe('true');
    await screenshotBothThemes(page, 'forges-new');

    await form.getByLabel('API URL').fill(forge.url);
    await form.getByRole('button', { name: 'Add forge' }).click();
    const item = page.getByRole('listitem', { name: /^forge #\d+$/ });
    await item.getByText('In use').waitFor();
    expect(await page.content()).not.toContain(TOKEN);

    await item.getByLabel('Commit SHA').fill(SHA);
    await item.getByRole('button', { name: 'Send test status' }).click();
    await item.getByRole('status').filter({ hasText: 'Test status svc/review/test: posted' }).waitFor();
    const request = forge.of('repos/create-commit-status').at(-1)!;
    expect(request).toEqual(expect.objectContaining({ path: `/repos/lan/web/statuses/${SHA}`, problems: [] }));
    expect(request.headers.authorization).toBe(`token ${TOKEN}`);

    const log = item.getByRole('table', { name: /^Deliveries of forge #\d+$/ });
    const row = log.getByRole('row').filter({ hasText: 'svc/review/test' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Delivered');
    expect(await row.textContent()).toContain('HTTP 200');
    expect(await row.textContent()).toContain('(test)');
    await screenshotBothThemes(page, 'forges-dashboard', true);
  });

  it('edits the forge (the token kept unless a new one is typed) and deletes it after a confirmation', async () => {
    const { page } = watched;
    const item = page.getByRole('listitem', { name: /^forge #\d+$/ });
    await item.getByRole('button', { name: /^Edit forge #\d+$/ }).click();
    const form = page.getByRole('form', { name: /^Edit forge #\d+$/ });
    expect(await form.getByLabel('Token').inputValue()).toBe('');
    await form.getByLabel('Repositories').fill('lan/web\nlan/other');
    await form.getByRole('button', { name: 'Save forge' }).click();
    await item.getByText('lan/other, lan/web', { exact: false }).waitFor();
    const [edited] = (await relay.http().get('/api/v1/forges').set('Cookie', admin.cookie).expect(200)).body.forges;
    expect(edited).toEqual(expect.objectContaining({ repositories: ['lan/other', 'lan/web'], has_token: true, problem: null }));

    await item.getByRole('button', { name: /^Delete forge #\d+$/ }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Delete forge' }).click();
    // While the dialog is open the page behind it is hidden from role locators, so the item looks gone
    // before the DELETE has answered: it counts only once the dialog has closed (after the answer).
    await dialog.waitFor({ state: 'detached' });
    await item.waitFor({ state: 'detached' });
    expect((await relay.http().get('/api/v1/forges').set('Cookie', admin.cookie).expect(200)).body.forges).toEqual([]);
  });
});
