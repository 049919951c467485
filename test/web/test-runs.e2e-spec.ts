import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, type WatchedPage, WEB_DIST } from '../support/browser';
import { fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/** Issue 37 item 5 in headless Chromium: the build page's Device tests panel shows a JUnit run, failing test first with its message. */
describeUnless(browserSkipReason(), 'device-test runs on the build page (issue 37)', () => {
  let browser: Browser;
  let relay: TestRelay;
  let developer: TestMember;
  let viewer: TestMember;
  let context: BrowserContext;
  let watched: WatchedPage;

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    const members = new MemberFactory(relay);
    developer = await members.member('Developer');
    viewer = await members.member('Viewer');
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await relay?.close();
  });

  it('shows the run, pass/fail per test with duration, and the failing test’s message', async () => {
    const members = new MemberFactory(relay);
    const id = (await members.as(developer, 'post', '/api/v1/builds').attach('file', readFileSync(fixture('string-label.apk')), 'string-label.apk').expect(201)).body.id as number;
    const junit = `<testsuites name="ci / smoke"><testsuite name="login">
      <testcase name="shows the inbox" classname="login" time="1.25"/>
      <testcase name="rejects a wrong password" classname="login" time="0.4"><failure message="expected the error banner"/></testcase>
    </testsuite></testsuites>`;
    await members.as(developer, 'post', `/api/v1/builds/${id}/test-runs`).set('Content-Type', 'application/xml').send(junit).expect(201);

    context = await newContext(browser);
    watched = await signedInPage(context, relay.url, viewer.cookie);
    await watched.page.goto(`${relay.url}/builds/${id}`);
    const run = watched.page.getByRole('article', { name: 'Run ci / smoke: failed' });
    await run.waitFor();
    const rows = run.getByRole('table', { name: 'Results of ci / smoke' }).getByRole('row');
    await rows.nth(2).waitFor();
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringMatching(/^Test\s+Result\s+Duration$/),
      expect.stringMatching(/^login › rejects a wrong password\s+expected the error banner\s+❌ failed\s+400 ms$/),
      expect.stringMatching(/^login › shows the inbox\s+✅ passed\s+1\.3 s$/),
    ]);
    await run.scrollIntoViewIfNeeded();
    await screenshotBothThemes(watched.page, 'build-device-tests');
    expect(watched.problems).toEqual([]);
  }, 120_000);
});
