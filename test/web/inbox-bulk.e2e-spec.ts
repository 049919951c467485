import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, waitFor, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { attachBuild, EXPECTED, fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/**
 * Issue 24 items 3 and 4 in a real browser: the inbox's search box finds a build by its label
 * (`search`, beyond the spec's `q`), several rows are checked with `x` and shift-click and set
 * Done in one go, and a drop of three files uploads all three, each with its own result.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: find builds, act on several, upload several', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let browser: Browser;
  let qa: TestMember;
  let watched: WatchedPage;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    const pat = await members.pat(qa, 'builds:write');
    // Oldest first: the inbox lists them e, d, c, b, a.
    const plan: [string, string, string][] = [
      ['a', 'literal-label.apk', 'main'],
      ['b', 'string-label.apk', 'feature/icons'],
      ['c', 'xml-root.app.zip', 'release/2.4'],
      ['d', 'binary-root.tar.gz', 'feature/checkout-v2'],
      ['e', 'xml-nested.tgz', 'main'],
    ];
    for (const [key, file, label] of plan) {
      relay.clock.advance(1000);
      ids[key] = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), file, { label }).expect(201)).body.id;
    }
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, qa.cookie);
    page = watched.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  const statusOf = async (id: number) => (await members.as(qa, 'get', `/api/v1/builds/${id}`).expect(200)).body.status_label;

  it('the search box finds a build by its label (search=, not q=)', async () => {
    await page.goto(`${relay.url}/builds`);
    await page.locator('tbody tr').nth(4).waitFor();
    await page.locator('body').press('/');
    await page.keyboard.type('checkout');
    await page.waitForURL(/search=checkout/);
    await page.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'feature/checkout-v2' }).waitFor();
    await screenshotBothThemes(page, 'inbox-search');
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    // Untriaged: no build has a status yet, so all five are listed.
    await page.goto(`${relay.url}/builds?status=untriaged`);
    await page.locator('tbody tr').nth(4).waitFor();
    await expect(page.getByLabel('Status', { exact: true }).inputValue()).resolves.toBe('untriaged');
  });

  it('checks three rows with x and shift-click and sets them all Done in one go', async () => {
    await page.goto(`${relay.url}/builds`);
    await page.locator('tbody tr').nth(4).waitFor();
    // The row's checkbox is no tab stop of its own: the row keeps its one (its link) plus the status menu it had.
    await expect(page.getByRole('checkbox', { name: `Select ${EXPECTED['xml-nested.tgz'].name} 2.2 (2200)` }).getAttribute('tabindex')).resolves.toBe('-1');
    await page.locator('body').press('j'); // the newest, e
    await page.locator('body').press('x');
    await page.getByRole('toolbar', { name: 'Selected builds' }).getByText('1 selected').waitFor();
    // Shift-click on c checks every row from e to c.
    await page.getByRole('checkbox', { name: `Select ${EXPECTED['xml-root.app.zip'].name} 3.4.5 (345)` }).click({ modifiers: ['Shift'] });
    await page.getByText('3 selected').waitFor();
    await screenshotBothThemes(page, 'inbox-bulk');
    await page.getByRole('button', { name: 'Set Done' }).click();
    await page.getByText('3 set to Done', { exact: true }).waitFor();
    await waitFor(async () => (await statusOf(ids.c)) === 'Done');
    expect(await Promise.all(['a', 'b', 'c', 'd', 'e'].map((k) => statusOf(ids[k])))).toEqual([null, null, 'Done', 'Done', 'Done']);
    await page.getByRole('toolbar', { name: 'Selected builds' }).waitFor({ state: 'detached' });
  });

  it('a drop of three files uploads all three, each with its own result', async () => {
    const refused = /status of 400 .*\/api\/v1\/builds\)$/;
    watched.allow.push(refused);
    await page.goto(`${relay.url}/builds`);
    await page.locator('tbody tr').nth(4).waitFor();
    await dropFiles(page, 'section[aria-labelledby="inbox-title"]', ['icons/mipmap-icon.apk', 'app.ipa', 'xml-nested.tgz']);
    await page.getByRole('list', { name: 'Files to upload' }).getByRole('listitem').nth(2).waitFor();
    await page.getByLabel('Label').fill('queue/drop');
    await page.getByRole('button', { name: 'Upload 3 builds' }).click();
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await waitFor(async () => (await uploads.getByRole('status').count()) === 2);
    await uploads.getByRole('alert').filter({ hasText: /^app\.ipa is not a build .*device build/i }).waitFor();
    await expect(uploads.getByRole('listitem').count()).resolves.toBe(3);
    await expect(uploads.getByRole('status').nth(0).innerText()).resolves.toMatch(/Uploaded Icon Demo/);
    await expect(uploads.getByRole('status').nth(1).innerText()).resolves.toMatch(new RegExp(`Uploaded ${EXPECTED['xml-nested.tgz'].name}`));
    await screenshotBothThemes(page, 'upload-queue');
    const listed = await members.as(qa, 'get', '/api/v1/builds?search=queue%2Fdrop').expect(200);
    expect(listed.body.total).toBe(2);
    watched.allow.splice(watched.allow.indexOf(refused), 1);
  });
});

/** Several files dropped at once on an element (one DataTransfer holding them all). */
async function dropFiles(page: Page, selector: string, names: string[]): Promise<void> {
  const files = names.map((name) => ({ name: name.split('/').pop()!, base64: readFileSync(fixture(name)).toString('base64') }));
  await page.evaluate(
    ({ selector, files }) => {
      const transfer = new DataTransfer();
      for (const file of files) transfer.items.add(new File([Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0))], file.name));
      const target = document.querySelector(selector)!;
      for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    { selector, files },
  );
}
