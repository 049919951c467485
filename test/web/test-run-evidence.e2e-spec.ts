import type { Browser } from 'playwright-core';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { FakeBackend } from '../../src/agent-daemon/backends/fake-backend';
import { HubSessionEvidence } from '../../src/device-tests/evidence/hub-session-evidence.service';
import { agentToken } from '../agents/agent-kit';
import { RunningAppium, runWdio, startAppiumAgent, startFakeAppium } from '../device-tests/hub-kit';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, waitFor, WEB_DIST, type WatchedPage } from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { ffmpegSkipReason } from '../support/ffmpeg';
import { startTestRelay, type TestRelay } from '../support/test-relay';

/**
 * Issue 37 item 5 in headless Chromium: "the build page shows … the failing step's screenshot and
 * recording moment". A WebdriverIO suite on a recorded fake device fails a find; its JUnit report
 * names the session; the failing test shows the final screenshot and opens the recording at the
 * failing command.
 */
describeUnless(browserSkipReason() ?? ffmpegSkipReason(), 'a failing test’s evidence on the build page (issue 37)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let appium: RunningAppium;
  let agent: AgentDaemon;
  let browser: Browser;
  let watched: WatchedPage;
  let build: { id: number };

  beforeAll(async () => {
    ensureWebBuilt();
    [relay, appium] = await Promise.all([startTestRelay({ SVC_WEB_DIR: WEB_DIST }), startFakeAppium()]);
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    const backend = new FakeBackend('lab-fail', { enabled: true, width: 240, height: 480, fps: 30 });
    agent = await startAppiumAgent(relay, await agentToken(members), 'lab-fail', appium, backend);
    build = await uploadTestBuild(members, qa);
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, qa.cookie);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await appium?.close();
    await relay?.close();
  });

  it('shows the failing test’s final screenshot (enlarged on click) and plays its recording from the failing command', async () => {
    const devicesPat = await members.pat(qa, 'devices');
    // The client waits before acting, so its commands come after the recording's first frame (the fake encoder starts within 2 s).
    const out = await runWdio('evidence', { url: `${relay.url}/wd/hub`, token: devicesPat, caps: { 'svc:build': build.id, 'svc:name': 'ci / login' }, settleMs: 3000 }).result;
    expect(out.deleted).toBe(true);
    await relay.app.get(HubSessionEvidence).settled();
    const session = (await members.as(qa, 'get', `/api/v1/device-test-sessions/${out.sessionId}`).expect(200)).body;
    const failing = session.commands.find((c: { error: { error: string } | null }) => c.error?.error === 'no such element');
    expect(failing).toBeDefined();
    expect(failing.at).toBeGreaterThan(0);
    const junit = `<testsuites name="ci / login"><testsuite name="login">
      <testcase name="logs in" classname="login" time="1.1"><properties><property name="svc:session" value="${out.sessionId}"/></properties></testcase>
      <testcase name="shows the inbox" classname="login" time="0.8">
        <failure message="element (~no_such_thing) still not existing"/>
        <properties><property name="svc:session" value="${out.sessionId}"/></properties>
      </testcase>
    </testsuite></testsuites>`;
    const stored = await members.withPat(devicesPat, 'post', `/api/v1/builds/${build.id}/test-runs`).set('Content-Type', 'application/xml').send(junit).expect(201);
    // The API says what the page shows: the failing test's screenshot and the failing command's place on the recording.
    expect(stored.body.results[1]).toEqual(
      expect.objectContaining({ status: 'failed', recording_url: session.recordingUrl, screenshot_url: session.screenshotUrl, failed_at_ms: failing.at }),
    );
    expect(stored.body.results[0]).toEqual(expect.objectContaining({ status: 'passed', screenshot_url: null, failed_at_ms: null }));

    const { page } = watched;
    await page.goto(`${relay.url}/builds/${build.id}`);
    const run = page.getByRole('article', { name: 'Run ci / login: failed' });
    const thumbnail = run.getByRole('img', { name: 'Final screenshot of shows the inbox' });
    await waitFor(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    await run.scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, 'build-failing-test-evidence');

    const thumbnailWidth = await thumbnail.evaluate((img: HTMLImageElement) => img.getBoundingClientRect().width);
    await run.getByRole('button', { name: 'Enlarge the final screenshot of shows the inbox' }).click();
    const dialog = page.getByRole('dialog', { name: 'Final screenshot' });
    const large = dialog.getByRole('img', { name: 'Final screenshot of shows the inbox' });
    await waitFor(() => large.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    expect(await large.evaluate((img: HTMLImageElement) => img.getBoundingClientRect().width)).toBeGreaterThan(thumbnailWidth);
    await screenshotBothThemes(page, 'build-failing-test-screenshot');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    await run.getByRole('link', { name: `Play from the failing step (${(failing.at / 1000).toFixed(1)} s)` }).click();
    await page.waitForURL(new RegExp(`/builds/${build.id}\\?recording=rec-[0-9a-f]{32}\\.mp4&at=[0-9.]+#recordings$`));
    const video = page.getByRole('region', { name: 'Recordings' }).locator('video');
    // The player opens at the failing command: from when the relay received it to when it was answered.
    const from = failing.at / 1000;
    const to = (failing.at + failing.durationMs) / 1000;
    const at = await waitFor(() =>
      video.evaluate((v: HTMLVideoElement) => (v.readyState >= 1 && !v.seeking && v.currentTime > 0 ? { currentTime: v.currentTime, duration: v.duration } : null)),
    );
    expect(at.duration).toBeGreaterThan(from);
    expect(at.currentTime).toBeGreaterThanOrEqual(from - 0.001);
    expect(at.currentTime).toBeLessThanOrEqual(to + 0.001);
    await page.getByRole('region', { name: 'Recordings' }).scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, 'build-failing-test-recording');
    expect(watched.problems.filter((p) => !p.includes('net::ERR_NETWORK_CHANGED'))).toEqual([]);
  }, 180_000);
});
