import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const LOGIN_SHA = '4f2a9c0d1e3b5a7c9e1f3a5b7c9d1e3f5a7b9c0d';
const RELEASE_SHA = 'c0de5eed00112233445566778899aabbccddeeff';

/**
 * Issue 40 item 1 in a real browser: two uploads of the same version and build number ("Résumé
 * Viewer 2.0.0-beta (7)") tell themselves apart in the inbox by the relay's build number and their
 * source (branch, PR), and a team finds each by branch, pull request and commit, from the search
 * box and from the provenance filters, every one kept in the URL.
 */
describeUnless(browserSkipReason(), 'inbox: provenance you can see and find (issue 40)', () => {
  let relay: TestRelay;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    const members = new MemberFactory(relay);
    const developer = await members.member('Developer');
    const pat = await members.pat(developer, 'builds:write');
    const plan: [string, Record<string, string>][] = [
      ['bare', {}],
      ['login', { branch: 'feature/login', pull_request: '17', commit: LOGIN_SHA }],
      ['release', { branch: 'release/2.1', commit: RELEASE_SHA }],
    ];
    for (const [key, fields] of plan) {
      relay.clock.advance(1000);
      ids[key] = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', fields).expect(201)).body.id;
    }
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, developer.cookie);
    page = watched.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  /** The inbox's rows, each as its line that starts with the build number. */
  const sources = async () => (await page.locator('tbody tr').allInnerTexts()).map((text) => /^#\d+.*$/m.exec(text)?.[0] ?? '');
  const onlyRow = async (text: string) => {
    await page.getByRole('row').filter({ hasText: text }).waitFor();
    await page.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
  };

  it('shows each row with its build number and its branch or pull request', async () => {
    await page.goto(`${relay.url}/builds`);
    await page.locator('tbody tr').nth(2).waitFor();
    expect(await sources()).toEqual([`#${ids.release} · release/2.1`, `#${ids.login} · feature/login · PR #17`, `#${ids.bare}`]);
    // The same version and build number on every row: the line under the name tells them apart.
    expect(await page.getByRole('row').filter({ hasText: '2.0.0-beta (7)' }).count()).toBe(3);
  });

  it('finds a build by branch, #PR and commit prefix from the search box', async () => {
    await page.goto(`${relay.url}/builds`);
    const search = page.getByLabel('Search builds');
    await search.fill('feature/login');
    await page.waitForURL(/search=feature%2Flogin/);
    await onlyRow('feature/login · PR #17');
    await screenshotBothThemes(page, 'inbox-provenance-search');
    await search.fill('#17');
    await page.waitForURL(/search=%2317/);
    await onlyRow(`#${ids.login} · feature/login`);
    await search.fill(RELEASE_SHA.slice(0, 7).toUpperCase());
    await page.waitForURL(new RegExp(`search=${RELEASE_SHA.slice(0, 7).toUpperCase()}`));
    await onlyRow(`#${ids.release} · release/2.1`);
    expect(await sources()).toEqual([`#${ids.release} · release/2.1`]);
  });

  it('filters by branch, pull request and commit, each kept in the URL', async () => {
    await page.goto(`${relay.url}/builds`);
    await page.locator('tbody tr').nth(2).waitFor();
    await page.getByLabel('Branch').fill('release/2.1');
    await page.waitForURL(/branch=release%2F2\.1/);
    await onlyRow('release/2.1');
    await page.getByLabel('Branch').fill('');
    await page.getByLabel('Pull request').fill('#17');
    await page.waitForURL((url) => url.searchParams.get('pull_request') === '17' && !url.searchParams.has('branch'));
    await onlyRow('feature/login · PR #17');
    await page.getByLabel('Pull request').fill('');
    // A half-typed commit is not sent; four hex characters or more are.
    await page.getByLabel('Commit').fill('4f2');
    expect(await page.getByLabel('Commit').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Commit').fill(LOGIN_SHA.slice(0, 8));
    await page.waitForURL((url) => url.searchParams.get('commit') === LOGIN_SHA.slice(0, 8) && !url.searchParams.has('pull_request'));
    await onlyRow(`#${ids.login} · feature/login`);
    await screenshotBothThemes(page, 'inbox-provenance-filters');
    // A link with the filters opens the same list.
    await page.goto(`${relay.url}/builds?branch=feature%2Flogin&pull_request=17`);
    await onlyRow(`#${ids.login} · feature/login · PR #17`);
    expect(await page.getByLabel('Branch').inputValue()).toBe('feature/login');
    expect(await page.getByLabel('Pull request').inputValue()).toBe('17');
  });
});
