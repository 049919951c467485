import type { Browser, Page } from 'playwright-core';
import { attachBuild } from '../support/build-fixtures';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, waitFor, WEB_DIST, type WatchedPage } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { forgeConfigPath, SHA_A, SHA_B, SHA_C, writeForgeConfig } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';

const TOKEN = 'ghp_words_token';

/**
 * Issue 40 item 6 in the browser: the toast names every notice sent (here a forge status, no
 * webhook) in the words the commit status and the pull-request comment use; rejecting asks for a
 * reason, which becomes a comment the commit status quotes; after a status key the selection moves
 * on to the next build still to triage.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: words that agree (issue 40 item 6)', () => {
  const forge = new TestForge('github', { token: TOKEN });
  let relay: TestRelay;
  let members: MemberFactory;
  let reviewer: TestMember;
  let browser: Browser;
  let watched: WatchedPage;
  const builds: Record<string, number> = {};

  beforeAll(async () => {
    ensureWebBuilt();
    await forge.start();
    const config = forgeConfigPath();
    writeForgeConfig(config, [{ type: 'github', url: forge.url, tokenEnv: 'GH_WORDS_TOKEN', repositories: ['acme/app'] }]);
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_CONFIG: config, GH_WORDS_TOKEN: TOKEN });
    members = new MemberFactory(relay);
    reviewer = await members.member('QA');
    const pat = await members.pat(await members.member('Developer'), 'builds:write');
    // Oldest first: the inbox lists C, B, A.
    for (const [name, commit, pr] of [['A', SHA_A, '5'], ['B', SHA_B, '6'], ['C', SHA_C, '7']]) {
      builds[name] = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'string-label.apk', { commit, repository: 'acme/app', pull_request: pr }).expect(201)).body.id;
    }
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, reviewer.cookie);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await forge.close();
  });

  afterEach(() => expect(watched.problems.splice(0)).toEqual([]));

  const toasts = (page: Page) => page.getByRole('region', { name: /^Notifications/ });
  const selectedId = async (page: Page) => Number((await page.locator('tr[aria-current="true"] [data-build-link]').getAttribute('data-build-link')) ?? 0);
  const lastStatus = (sha: string) =>
    forge.of('repos/create-commit-status').filter((r) => r.path.endsWith(`/statuses/${sha}`)).at(-1)?.body as { state: string; description: string } | undefined;
  it('3 says Done and the forge status it queued; the commit status and the comment say "Done by"; the selection moves on', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/builds`);
    await page.getByRole('row').nth(3).waitFor();
    await page.locator('body').press('j');
    await page.locator('tr[aria-current="true"]').waitFor();
    expect(await selectedId(page)).toBe(builds.C);
    await page.keyboard.press('3');
    await toasts(page).getByText(/: Done, 1 forge status notified\.$/).waitFor();
    // The next untriaged build is selected.
    await waitFor(async () => (await selectedId(page)) === builds.B);
    const status = await waitFor(() => (lastStatus(SHA_C)?.state === 'success' ? lastStatus(SHA_C) : null));
    expect(status.description).toMatch(/^Done by \S+$/);
    const who = status.description.slice('Done by '.length);
    await waitFor(() => forge.requests.some((r) => JSON.stringify(r.body ?? '').includes(`✅ Done by ${who}`)));
  });

  it('4 asks for a reason, posts it as a comment the commit status quotes, and moves on', async () => {
    const { page } = watched;
    expect(await selectedId(page)).toBe(builds.B);
    await page.keyboard.press('4');
    const dialog = page.getByRole('alertdialog', { name: /^Reject / });
    await dialog.getByLabel('Reason (optional)').fill('Crashes on login');
    await screenshotBothThemes(page, 'reject-reason');
    await dialog.getByLabel('Reason (optional)').press('Enter');
    await toasts(page).getByText(/: Rejected, 1 forge status notified\.$/).waitFor();
    await waitFor(async () => (await selectedId(page)) === builds.A);
    const comments = await waitFor(async () => {
      const list = (await members.as(reviewer, 'get', `/api/v1/comments?build_id=${builds.B}`).expect(200)).body as { body: string }[];
      return list.length ? list : null;
    });
    expect(comments.map((c) => c.body)).toEqual(['Crashes on login']);
    await waitFor(() => /^Rejected by \S+: Crashes on login$/.test(lastStatus(SHA_B)?.description ?? ''));
    await waitFor(() => forge.requests.some((r) => JSON.stringify(r.body ?? '').includes('❌ Rejected by')));
    expect((await members.as(reviewer, 'get', `/api/v1/builds/${builds.B}`).expect(200)).body.status_label).toBe('Rejected');
  });

  it('Cancel in the reason dialog leaves the status as it was', async () => {
    const { page } = watched;
    expect(await selectedId(page)).toBe(builds.A);
    await page.keyboard.press('4');
    await page.getByRole('alertdialog', { name: /^Reject / }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('alertdialog').waitFor({ state: 'detached' });
    expect((await members.as(reviewer, 'get', `/api/v1/builds/${builds.A}`).expect(200)).body.status_label).toBeNull();
    expect(await selectedId(page)).toBe(builds.A);
  });

  it('when the team asks for a reason, Reject waits for one and says why; the comment goes first', async () => {
    const { page } = watched;
    const admin = await members.admin();
    await members.as(admin, 'put', '/api/v1/settings/review').send({ reject_reason_required: true }).expect(200);
    await page.reload();
    await page.getByRole('row').nth(3).waitFor();
    for (let step = 0; step < 3 && (await selectedId(page)) !== builds.A; step++) {
      await page.locator('body').press('j');
      await page.locator('tr[aria-current="true"]').waitFor();
    }
    expect(await selectedId(page)).toBe(builds.A);
    await page.keyboard.press('4');
    const dialog = page.getByRole('alertdialog', { name: /^Reject / });
    const reason = dialog.getByLabel('Reason', { exact: true });
    await dialog.getByText('This team asks for a reason when rejecting.').waitFor();
    expect(await dialog.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(true);
    await reason.press('Enter'); // nothing to send: the dialog stays
    expect(await dialog.isVisible()).toBe(true);
    await reason.fill('Wrong icon');
    expect(await dialog.getByRole('button', { name: 'Reject' }).isEnabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await toasts(page).getByText(/: Rejected, 1 forge status notified\.$/).waitFor();
    expect((await members.as(reviewer, 'get', `/api/v1/builds/${builds.A}`).expect(200)).body.status_label).toBe('Rejected');
    const comments = (await members.as(reviewer, 'get', `/api/v1/comments?build_id=${builds.A}`).expect(200)).body as { body: string }[];
    expect(comments.map((c) => c.body)).toEqual(['Wrong icon']);
    await waitFor(() => /^Rejected by \S+: Wrong icon$/.test(lastStatus(SHA_A)?.description ?? ''));
  });
});
