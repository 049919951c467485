import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  browserSkipReason,
  ensureWebBuilt,
  launchChromium,
  newContext,
  screenshotBothThemes,
  signInInBrowser,
  waitFor,
  watchedPage,
  WEB_DIST,
  type WatchedPage,
} from '../support/browser';
import { attachBuild, fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TEST_PASSWORD, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const SIGNED_OUT_PROBE = /Failed to load resource: the server responded with a status of 401/;
const GONE = /Failed to load resource: the server responded with a status of 410/;
const REFUSED = /Failed to load resource: the server responded with a status of 400/;

/**
 * The dashboard's account pages and who-did-what, in real headless Chromium (issue 12): the first
 * run off the relay host, the password-reset link (valid, used, expired), change password, the
 * inbox's uploader and icon, and comment deletion offered by member id, not by name.
 */
describeUnless(browserSkipReason(), 'dashboard accounts and authors in the browser (issue 12)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let browser: Browser;
  const opened: WatchedPage[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    members = new MemberFactory(relay);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  /** A fresh browser (its own cookies) with one watched page. */
  async function freshPage(options: Parameters<typeof newContext>[1] = {}): Promise<WatchedPage> {
    const context = await newContext(browser, options);
    contexts.push(context);
    const watched = await watchedPage(context);
    opened.push(watched);
    return watched;
  }

  /** Every page stayed free of console errors, exceptions and CSP violations; browsers are closed. */
  afterEach(async () => {
    for (const w of opened.splice(0)) expect(w.problems).toEqual([]);
    for (const context of contexts.splice(0)) await context.close();
  });

  const url = (path: string) => relay.url + path;

  async function displayName(member: TestMember, name: string) {
    await members.as(member, 'patch', '/api/v1/profile').field('display_name', name).expect(200);
  }

  it('first run off the relay host: no form, the page says to run "svc admin init" on the relay machine', async () => {
    // A forwarding header makes the relay treat the browser as remote (docs/auth.md "relay host").
    const remote = await freshPage({ extraHTTPHeaders: { 'X-Forwarded-For': '203.0.113.7' } });
    remote.allow.push(SIGNED_OUT_PROBE);
    await remote.page.goto(url('/'));
    await remote.page.getByRole('heading', { name: 'This relay is not set up yet' }).waitFor();
    await remote.page.getByText('npx svc admin init --email you@example.com').waitFor();
    await expect(remote.page.getByLabel('Password').count()).resolves.toBe(0);
    await screenshotBothThemes(remote.page, 'first-run-remote');
    const status = await relay.http().get('/api/v1/auth/status').set('X-Forwarded-For', '203.0.113.7').expect(200);
    expect(status.body).toEqual({ initialized: false, canInitialize: false });
  });

  it('reset-password link: a new password is chosen and signs in; the used link then opens a 410 page', async () => {
    const admin = await members.admin();
    const dev = await members.member('Developer', 'dana@example.com');
    const sent = await members.as(admin, 'post', `/api/v1/team/members/${dev.id}/send-reset`).expect(200);
    const w = await freshPage();
    w.allow.push(SIGNED_OUT_PROBE, GONE, REFUSED);
    const { page } = w;
    await page.goto(url(`/reset-password?token=${sent.body.token}`));
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await screenshotBothThemes(page, 'reset-password');
    // The API's rule is shown at the field.
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(fieldError(page, 'New password')).resolves.toMatch(/password/i);
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(dev.email);
    await page.getByLabel('Password').fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Builds' }).waitFor();
    await relay.http().post('/api/v1/auth/login').send({ email: dev.email, password: TEST_PASSWORD }).expect(401);

    // The link worked once: opened again, it says so and offers no form.
    await page.goto(url(`/reset-password?token=${sent.body.token}`));
    await page.getByRole('heading', { name: 'This reset link has expired' }).waitFor();
    await expect(page.getByLabel('New password').count()).resolves.toBe(0);
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${sent.body.token}`).expect(410);
  });

  it('reset-password link past its 2 hours: a 410 page that says so, with no form', async () => {
    const admin = await members.admin();
    const late = await members.member('QA');
    const sent = await members.as(admin, 'post', `/api/v1/team/members/${late.id}/send-reset`).expect(200);
    relay.clock.advance(2 * 3600 * 1000 + 60_000);
    const w = await freshPage();
    w.allow.push(GONE);
    await w.page.goto(url(`/reset-password?token=${sent.body.token}`));
    await w.page.getByRole('heading', { name: 'This reset link has expired' }).waitFor();
    await w.page.getByText('Ask an Admin for a new one.').waitFor();
    await expect(w.page.getByLabel('New password').count()).resolves.toBe(0);
    await screenshotBothThemes(w.page, 'reset-password-expired');
    // Nothing changed: the old password still signs in.
    await members.login(late.email);
  });

  it('change password: a wrong current password is shown at that field; the right one changes it', async () => {
    const qa = await members.member('QA', 'quinn@example.com');
    const w = await freshPage();
    w.allow.push(SIGNED_OUT_PROBE, REFUSED);
    const { page } = w;
    await signInInBrowser(page, url('/signin'), qa.email, TEST_PASSWORD);
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Profile and password' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('another good password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(fieldError(page, 'Current password')).resolves.toBe('Current password is incorrect.'); // the relay's message, as a sentence
    await expect(page.getByLabel('New password').getAttribute('aria-invalid')).resolves.toBeNull();
    await screenshotBothThemes(page, 'change-password');
    await page.getByLabel('Current password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Other browsers were signed out.', { exact: true }).waitFor();
    await expect(page.getByLabel('Current password').inputValue()).resolves.toBe('');
    // This browser stays signed in on the session the change gave it (its live stream, opened with
    // the old one, was ended and reconnects): a build uploaded now still appears by itself.
    await page.getByRole('link', { name: 'Builds', exact: true }).click();
    await page.getByRole('heading', { name: 'Builds' }).waitFor();
    await attachBuild(members.as(await members.admin(), 'post', '/api/v1/builds'), 'string-label.apk', { label: 'after-the-change' }).expect(201);
    await page.getByRole('row').filter({ hasText: 'after-the-change' }).waitFor();
    await expect(page.getByRole('heading', { name: 'Sign in' }).count()).resolves.toBe(0);
    await members.login(qa.email, 'another good password');
    await relay.http().post('/api/v1/auth/login').send({ email: qa.email, password: TEST_PASSWORD }).expect(401);
  });

  it('the inbox shows who uploaded each build (a CI token counts as its owner; one uploaded by the file picker) and its launcher icon, else a letter', async () => {
    const admin = await members.admin();
    const uploader = await members.member('Developer');
    await displayName(uploader, 'Uma Uploader');
    const pat = await members.pat(uploader, 'builds:write');
    const withIcon = (await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), 'icons/mipmap-icon.apk', {}, 'mipmap-icon.apk').expect(201)).body;
    const w = await freshPage();
    w.allow.push(SIGNED_OUT_PROBE);
    const { page } = w;
    await signInInBrowser(page, url('/signin'), admin.email, TEST_PASSWORD);
    // The other build comes through the upload form's file picker (the drop is the dashboard spec's).
    await page.getByLabel('choose a file').setInputFiles(fixture('string-label.apk'));
    await page.getByText('string-label.apk').waitFor();
    await page.getByLabel('Label').fill('no-icon');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded' }).waitFor();
    await page.getByRole('columnheader', { name: 'Uploader' }).waitFor();
    const iconRow = page.getByRole('row').filter({ hasText: 'Icon Demo' });
    await iconRow.getByRole('cell', { name: 'Uma Uploader' }).waitFor();
    const icon = iconRow.locator(`img[src="/api/v1/builds/${withIcon.id}/icon"]`);
    await waitFor(() => icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    const plainRow = page.getByRole('row').filter({ hasText: 'no-icon' });
    await plainRow.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    await expect(plainRow.locator('img').count()).resolves.toBe(0);
    await expect(plainRow.getByText('R', { exact: true }).count()).resolves.toBe(1);
    await iconRow.getByRole('link', { name: 'Icon Demo' }).click();
    await page.getByRole('heading', { name: 'Comments' }).waitFor();
    await page.getByText(/by Uma Uploader/).first().waitFor();
  });

  it('comment deletion is offered by member id: a teammate with the same display name sees no delete button on the other\'s comment', async () => {
    const admin = await members.admin();
    const first = await members.member('QA');
    const second = await members.member('QA');
    await displayName(first, 'Sam');
    await displayName(second, 'Sam');
    const build = (await attachBuild(members.as(admin, 'post', '/api/v1/builds'), 'string-label.apk', { label: 'same-names' }).expect(201)).body;
    await members.as(first, 'post', '/api/v1/comments').field('build_id', String(build.id)).field('body', 'Written by the first Sam.').expect(201);
    const w = await freshPage();
    w.allow.push(SIGNED_OUT_PROBE);
    const { page } = w;
    await signInInBrowser(page, url('/signin'), second.email, TEST_PASSWORD);
    await page.goto(url(`/builds/${build.id}`));
    await page.getByText('Written by the first Sam.').waitFor();
    await page.getByLabel('Add a comment').fill('Written by the second Sam.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const mine = page.getByRole('listitem').filter({ hasText: 'Written by the second Sam.' });
    await mine.getByRole('button', { name: 'Delete comment by Sam' }).waitFor();
    const theirs = page.getByRole('listitem').filter({ hasText: 'Written by the first Sam.' });
    await expect(theirs.getByRole('button', { name: /^Delete comment/ }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Delete comment by/ }).count()).resolves.toBe(1);
    // The API agrees: the other Sam's comment is refused to this one.
    const listed = (await members.as(second, 'get', `/api/v1/comments?build_id=${build.id}`).expect(200)).body as { id: number; author_id: number }[];
    expect(listed.map((c) => c.author_id)).toEqual([first.id, second.id]);
    await members.as(second, 'delete', `/api/v1/comments/${listed[0].id}`).expect(403);
    await mine.getByRole('button', { name: 'Delete comment by Sam' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete comment' }).click();
    await page.getByText('Written by the second Sam.').waitFor({ state: 'detached' });
    await page.getByText('Written by the first Sam.').waitFor();
  });
});

/** The error announced under a labelled field (the input is invalid and described by it), once it appears. */
async function fieldError(page: Page, label: string): Promise<string> {
  const input = page.getByLabel(label, { exact: true });
  await waitFor(async () => (await input.getAttribute('aria-invalid')) === 'true');
  const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
  expect(errorId).toBeDefined();
  const error = page.locator(`[id="${errorId}"]`);
  await expect(error.getAttribute('role')).resolves.toBe('alert');
  return error.innerText();
}
