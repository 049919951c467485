import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/**
 * Issue 39 item 2 in the browser: an Admin adds a Slack channel for one branch on the Integrations
 * page's chat section, is told at the field when the channel id is not one, and removes it after a
 * confirmation; a Teams URL on this host is refused at its field.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: chat destinations (issue 39)', () => {
  let relay: TestRelay;
  let admin: TestMember;
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_SECRETS_KEY: randomBytes(32).toString('base64') });
    admin = await new MemberFactory(relay).admin();
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, admin.cookie);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  it('adds a Slack channel for a branch, refuses a loopback Teams URL at its field, and removes the channel', async () => {
    const { page } = watched;
    watched.allow.push(/status of 400/);
    await page.goto(`${relay.url}/integrations#chat`);
    await page.getByRole('heading', { name: 'Chat: Slack and Microsoft Teams' }).waitFor();
    await page.getByText('Slack is not configured').waitFor();
    await page.getByRole('button', { name: 'New chat destination' }).click();
    const form = page.getByRole('form', { name: 'New chat destination' });
    await form.getByLabel('Channel id').fill('#general');
    await form.getByLabel('Branches').fill('main, release');
    await form.getByRole('button', { name: 'Add destination' }).click();
    await form.getByRole('alert').filter({ hasText: 'channel must be a Slack channel id' }).waitFor();
    expect(await form.getByLabel('Channel id').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Channel id').fill('C0WEB');
    await form.getByRole('button', { name: 'Add destination' }).click();
    const item = page.getByRole('listitem', { name: 'Slack channel C0WEB' });
    await item.getByText('branches: main, release').waitFor();
    await item.getByText('Not used', { exact: true }).waitFor();
    await item.getByText('not used: Slack is not configured', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'New chat destination' }).click();
    await form.getByLabel('Where').selectOption('teams');
    await form.getByLabel('Name').fill('lan');
    await form.getByLabel('Webhook URL').fill('http://127.0.0.1:9/workflow');
    await form.getByRole('button', { name: 'Add destination' }).click();
    await form.getByRole('alert').filter({ hasText: 'Teams URL refused' }).waitFor();
    expect(await form.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    await screenshotBothThemes(page, 'chat-destinations', true);
    await form.getByRole('button', { name: 'Cancel' }).click();

    await item.getByRole('button', { name: 'Remove Slack channel C0WEB' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor({ state: 'detached' });
    await item.waitFor({ state: 'detached' });
    expect((await relay.http().get('/api/v1/integrations/chat').set('Cookie', admin.cookie).expect(200)).body.routes).toEqual([]);
  });
});
