import type { Browser } from 'playwright-core';
import { LiveEventsService } from '../../src/live-events/live-events.service';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, WEB_DIST, watchedPage, type WatchedPage } from '../support/browser';
import { attachBuild, EXPECTED } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TEST_PASSWORD, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const FIXTURE = 'string-label.apk';
const SIGNED_OUT = /Failed to load resource: the server responded with a status of 401/;

/**
 * The live stream (GET /api/v1/events) in a real open inbox: what CI and teammates do elsewhere
 * appears without a reload ("Done when": the CI upload appeared in their open inbox by itself).
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: live inbox', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let browser: Browser;
  let admin: TestMember;
  let reviewer: TestMember;
  let watched: WatchedPage;

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    members = new MemberFactory(relay);
    admin = await members.admin();
    reviewer = await members.member('QA');
    browser = await launchChromium();
    const context = await newContext(browser);
    const [name, value] = reviewer.cookie.split('=');
    await context.addCookies([{ name, value, url: relay.url, httpOnly: true, sameSite: 'Lax' }]);
    watched = await watchedPage(context);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  /** The page's stream is registered on the relay (so an event sent now reaches it). */
  async function streamOpen(count = 1): Promise<void> {
    const live = relay.app.get(LiveEventsService);
    const deadline = Date.now() + 15_000;
    while (live.size < count) {
      if (Date.now() > deadline) throw new Error(`the page opened no event stream (${live.size} open)`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('a build uploaded by a CI token appears in the open inbox by itself', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/builds`);
    await page.getByText('No builds yet.').waitFor();
    await streamOpen();
    // Marks this document: a reload or navigation would lose it.
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

    const ci = await members.pat(admin, 'builds:write');
    await attachBuild(members.withPat(ci, 'post', '/api/v1/builds'), FIXTURE, { label: 'ci/main' }).expect(201);

    await page.getByRole('link', { name: EXPECTED[FIXTURE].name }).waitFor();
    await page.getByText('ci/main').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });

  it('a status set by a teammate elsewhere shows in the open inbox', async () => {
    const { page } = watched;
    const build = (await members.as(admin, 'get', '/api/v1/builds').expect(200)).body.items[0];
    await members.as(admin, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'Rejected' }).expect(200);
    await page.getByRole('button', { name: /: Rejected\. Change status$/ }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });

  it('when the session ends elsewhere (password changed in another browser) the page goes to sign-in', async () => {
    const { page } = watched;
    watched.allow.push(SIGNED_OUT);
    const otherBrowser = await members.login(reviewer.email);
    await relay
      .http()
      .post('/api/v1/auth/change-password')
      .set('Cookie', otherBrowser)
      .send({ currentPassword: TEST_PASSWORD, newPassword: 'a changed password' })
      .expect(200);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(relay.app.get(LiveEventsService).size).toBe(0);
  });
});
