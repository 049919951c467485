import type { Browser } from 'playwright-core';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { agentToken, startFakeAgent } from '../agents/agent-kit';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, waitFor, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { ffmpegSkipReason } from '../support/ffmpeg';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const AGENT = 'rec-lab';
const SESSION = `fake-android-${AGENT}`;
const RECORDING_PATH = /\/api\/v1\/recordings\/rec-[0-9a-f]{32}\.mp4/;

/**
 * Issue 29 item 4 in the dashboard: a reviewer records the device panel (Record, elapsed time, Stop),
 * plays the MP4 on the build page beside its timeline (a click on an event seeks the video there),
 * rejects the build and attaches the recording to a comment, where it plays in place.
 */
describeUnless(browserSkipReason() ?? ffmpegSkipReason(), 'dashboard in the browser: recorded sessions (issue 29)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let agent: AgentDaemon;
  let browser: Browser;
  let watched: WatchedPage;
  let buildId: number;

  beforeAll(async () => {
    ensureWebBuilt();
    // A UI-tree snapshot each second, so a few seconds of recording hold more than one.
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_RECORDING_SNAPSHOT_INTERVAL_MS: '1000' });
    members = new MemberFactory(relay);
    const admin = await members.admin();
    qa = await members.member('QA');
    buildId = (await uploadTestBuild(members, admin)).id;
    agent = await startFakeAgent(relay, await agentToken(members), AGENT, { width: 360, height: 800, fps: 30 });
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser, { viewport: { width: 1280, height: 1400 } }), relay.url, qa.cookie);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  it('a Viewer sees Record disabled, with the reason', async () => {
    const viewer = await members.member('Viewer');
    const context = await newContext(browser);
    const v = await signedInPage(context, relay.url, viewer.cookie);
    await v.page.goto(`${relay.url}/devices/${SESSION}`);
    const record = v.page.getByRole('button', { name: 'Record', exact: true });
    await record.waitFor();
    expect(await record.isDisabled()).toBe(true);
    await expect(record.getAttribute('aria-describedby')).resolves.toBeTruthy();
    await v.page.getByText(/^Viewers cannot record/).waitFor();
    expect(v.problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('records taps on the panel, stops, and the build page plays the MP4 beside its timeline; a click on an event seeks there', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/devices/${SESSION}?build=${buildId}`);
    const canvas = page.getByRole('img', { name: 'Live video of Pixel 8' });
    await page.getByRole('status').filter({ hasText: /^Live video · \d+ fps/ }).waitFor({ timeout: 30_000 });

    const panel = page.getByRole('region', { name: 'Record this session' });
    await panel.getByRole('button', { name: 'Record', exact: true }).click();
    const timer = panel.getByRole('timer', { name: 'Recording time' });
    await timer.waitFor();
    // The elapsed time counts up (m:ss) while it records.
    await waitFor(async () => {
      const match = /^\s*(\d+):(\d\d)$/.exec((await timer.textContent()) ?? '');
      return match && Number(match[1]) * 60 + Number(match[2]) >= 2;
    }, 10_000);
    const box = (await canvas.boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.75);
    await page.getByRole('status').filter({ hasText: 'Tapped at 25 %, 75 %' }).waitFor();
    await page.waitForTimeout(1500);
    await page.getByRole('group', { name: 'Hardware buttons' }).getByRole('button', { name: 'Home' }).click();
    await page.waitForTimeout(1000);
    await panel.getByRole('button', { name: 'Stop recording' }).click();
    await panel.getByRole('status').filter({ hasText: /^Recording saved \(\d+:\d\d, [\d.]+ (KB|MB)\)/ }).waitFor({ timeout: 20_000 });

    await panel.getByRole('link', { name: 'Play it on the build page' }).click();
    await page.waitForURL(new RegExp(`/builds/${buildId}\\?recording=rec-[0-9a-f]{32}\\.mp4#recordings$`));
    const video = page.getByRole('region', { name: 'Recordings' }).locator('video');
    await expect(video.getAttribute('src')).resolves.toMatch(RECORDING_PATH);
    // It decodes and plays: enough data for the current picture, and the time moves on.
    const played = await video.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
      await new Promise((resolve) => setTimeout(resolve, 700));
      v.pause();
      return { readyState: v.readyState, currentTime: v.currentTime, duration: v.duration };
    });
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(played.currentTime).toBeGreaterThan(0.2);
    expect(played.duration).toBeGreaterThan(2);

    // The timeline, as the relay wrote it, beside the video: time, what, who.
    const file = RECORDING_PATH.exec((await video.getAttribute('src'))!)![0];
    const timeline = (await members.as(qa, 'get', `${file}/timeline`).expect(200)).body as { events: { at: number; type: string }[] };
    const home = timeline.events.find((e) => e.type === 'press_button')!;
    expect(home).toBeDefined();
    const list = page.getByRole('region', { name: 'Timeline' });
    const tap = list.getByRole('button', { name: /Tapped at 25 %, 75 %/ });
    await tap.waitFor();
    await expect(tap.textContent()).resolves.toContain(qa.email);
    const pressed = list.getByRole('button', { name: /Pressed home/ });
    await pressed.click();
    const seekedTo = await waitFor(
      () => video.evaluate((v: HTMLVideoElement, expected: number) => (Math.abs(v.currentTime - expected) < 0.05 ? v.currentTime : null), home.at / 1000),
      5000,
    );
    expect(seekedTo).toBeCloseTo(home.at / 1000, 1);
    await expect(pressed.getAttribute('aria-current')).resolves.toBe('true');
    await expect(tap.getAttribute('aria-current')).resolves.toBeNull();

    // The UI tree the relay took at that time opens beside it.
    await list.getByText(/^UI tree at \d+:\d\d$/).click();
    await list.getByRole('heading', { name: 'UI hierarchy' }).waitFor();
    await screenshotBothThemes(page, 'recording-playback');
  }, 120_000);

  it('the reviewer rejects the build and attaches the recording to a comment, which plays it in place', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: /^Review status: .*Change status$/ }).click();
    await page.getByRole('menuitemradio', { name: /Rejected/ }).click();
    // Rejecting asks for a reason (optional here); this reviewer gives it with the recording below instead.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByRole('button', { name: /^Review status: Rejected\. Change status$/ }).waitFor();

    const composer = page.getByRole('textbox', { name: 'Add a comment' });
    await composer.fill('Rejected: Home does nothing on the sign-in screen.');
    await page.getByRole('button', { name: 'Attach recording ▾' }).click();
    await page.getByRole('menuitem', { name: /^Recording from / }).first().click();
    await expect(composer.inputValue()).resolves.toMatch(new RegExp(`^Rejected: Home does nothing on the sign-in screen\\.\\nRecording: ${RECORDING_PATH.source}$`));
    await page.getByRole('button', { name: 'Comment', exact: true }).click();

    const attached = page.getByRole('region', { name: 'Comments' }).locator('video');
    await attached.waitFor();
    // Named after the comment's author (the member's display name).
    await expect(attached.getAttribute('aria-label')).resolves.toBe(`Recording attached to the comment by ${qa.email.split('@')[0]}`);
    await waitFor(() => attached.evaluate((v: HTMLVideoElement) => v.readyState >= 1 && v.duration > 2), 10_000);
    await page.getByRole('link', { name: 'Play with its timeline' }).waitFor();

    // Through the API: the verdict and a comment whose body names the recording (the spec's Comment shape, no new field).
    const build = (await members.as(qa, 'get', `/api/v1/builds/${buildId}`).expect(200)).body as { status_label: string };
    expect(build.status_label).toBe('Rejected');
    const comments = (await members.as(qa, 'get', `/api/v1/comments?build_id=${buildId}`).expect(200)).body as { body: string }[];
    expect(comments.map((c) => c.body)).toEqual([expect.stringMatching(RECORDING_PATH)]);
    await attached.scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, 'recording-comment');

    // "Play with its timeline" picks that recording for the build page's player.
    await page.getByRole('link', { name: 'Play with its timeline' }).click();
    await page.waitForURL(/\?recording=rec-[0-9a-f]{32}\.mp4#recordings$/);
    const player = page.getByRole('region', { name: 'Recordings' }).locator('video');
    await expect(player.getAttribute('src')).resolves.toBe(RECORDING_PATH.exec(comments[0].body)![0]);
  }, 60_000);

  it("Record on a device someone else records shows that recording, and its Stop saves it", async () => {
    const { page } = watched;
    const other = await members.member('Developer');
    const started = await members.as(other, 'post', `/api/v1/sessions/${SESSION}/recordings`).send({ buildId }).expect(201);
    expect(started.body.startedBy).toBe(other.email);
    await page.goto(`${relay.url}/devices/${SESSION}`);
    const panel = page.getByRole('region', { name: 'Record this session' });
    // The relay answers 409 (one recording per session); the panel shows the running one instead.
    watched.allow.push(/status of 409/);
    await panel.getByRole('button', { name: 'Record', exact: true }).click();
    await panel.getByRole('timer', { name: 'Recording time' }).waitFor();
    await panel.getByText(`Started by ${other.email}`, { exact: false }).waitFor();
    expect(await panel.getByRole('alert').count()).toBe(0);
    await page.waitForTimeout(2500);
    await panel.getByRole('button', { name: 'Stop recording' }).click();
    await panel.getByRole('status').filter({ hasText: /^Recording saved/ }).getByRole('link', { name: 'Play it on the build page' }).waitFor({ timeout: 20_000 });
    await members.as(other, 'get', `/api/v1/sessions/${SESSION}/recordings/current`).expect(404);
  }, 60_000);

  it('while Stop is on its way, the panel does not poll the recording it is stopping (no 404 in the console)', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/devices/${SESSION}`);
    // Video first, so the recording has some to save.
    await page.getByRole('status').filter({ hasText: /^Live video · \d+ fps/ }).waitFor({ timeout: 30_000 });
    const panel = page.getByRole('region', { name: 'Record this session' });
    await panel.getByRole('button', { name: 'Record', exact: true }).click();
    const timer = panel.getByRole('timer', { name: 'Recording time' });
    await waitFor(async () => /^\s*0:0[1-9]$/.test((await timer.textContent()) ?? ''), 10_000);
    // The relay stops at once; its answer is held past the panel's 5 s poll, which used to fire
    // then, reach a relay with no recording, and be answered 404 (CI saw it as a console error).
    const polls: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().endsWith(`/sessions/${SESSION}/recordings/current`)) polls.push(request.url());
    };
    await page.route('**/recordings/stop', async (route) => {
      const response = await route.fetch();
      page.on('request', onRequest);
      await new Promise((resolve) => setTimeout(resolve, 6500));
      await route.fulfill({ response });
    });
    await panel.getByRole('button', { name: 'Stop recording' }).click();
    await panel.getByRole('status').filter({ hasText: /^Recording saved/ }).waitFor({ timeout: 20_000 });
    page.off('request', onRequest);
    await page.unroute('**/recordings/stop');
    expect(polls).toEqual([]);
  }, 60_000);
});
