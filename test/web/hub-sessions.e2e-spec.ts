import type { Browser } from 'playwright-core';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { HubSessionEvidence } from '../../src/device-tests/evidence/hub-session-evidence.service';
import { agentToken } from '../agents/agent-kit';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, signedInPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { RunningAppium, startAppiumAgent, startFakeAppium } from '../device-tests/hub-kit';

const DEVICE = 'fake-android-lab-web';

/** Issue 37 items 3 and 4 in the browser: who holds a device, watching a hub session read-only, an Admin ending it. */
describeUnless(browserSkipReason(), 'dashboard in the browser: hub sessions (issue 37)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let qa: TestMember;
  let appium: RunningAppium;
  let agent: AgentDaemon;
  let browser: Browser;
  let adminPage: WatchedPage;
  let qaPage: WatchedPage;
  let build: { id: number };
  let hubSession: string;

  beforeAll(async () => {
    ensureWebBuilt();
    [relay, appium] = await Promise.all([startTestRelay({ SVC_WEB_DIR: WEB_DIST }), startFakeAppium()]);
    members = new MemberFactory(relay);
    admin = await members.admin();
    qa = await members.member('QA');
    agent = await startAppiumAgent(relay, await agentToken(members), 'lab-web', appium);
    build = await uploadTestBuild(members, qa);
    const res = await relay
      .http()
      .post('/wd/hub/session')
      .set('Authorization', `Bearer ${await members.pat(qa, 'devices')}`)
      .send({ capabilities: { alwaysMatch: { platformName: 'Android', 'svc:build': build.id, 'svc:name': 'ci / web' } } })
      .expect(200);
    hubSession = res.body.value.sessionId;
    browser = await launchChromium();
    adminPage = await signedInPage(await newContext(browser), relay.url, admin.cookie);
    qaPage = await signedInPage(await newContext(browser), relay.url, qa.cookie);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await appium?.close();
    await relay?.close();
  });

  // Chromium reports ERR_NETWORK_CHANGED when another suite on the machine adds a network namespace (test/support/netns.ts): not this page's problem.
  const problems = (watched: WatchedPage) => watched.problems.splice(0).filter((p) => !p.includes('net::ERR_NETWORK_CHANGED'));
  afterEach(() => {
    expect(problems(adminPage)).toEqual([]);
    expect(problems(qaPage)).toEqual([]);
  });

  it('shows a running session on its build page and on the device panel, watching only', async () => {
    const { page } = qaPage;
    await page.goto(`${relay.url}/builds/${build.id}`);
    const running = page.getByRole('region', { name: 'Running device tests' });
    await running.getByRole('link', { name: /“ci \/ web”/ }).click();
    await page.getByRole('status').filter({ hasText: 'Automation holds this device' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Automation holds this device' }).textContent()).toContain('You are watching; input is off while it runs.');
    expect(await page.getByRole('button', { name: 'Tap this element' }).count()).toBe(0);
    // Members see who holds the device, but only Admins may end the session.
    await page.goto(`${relay.url}/devices`);
    const row = page.getByRole('table', { name: 'Devices' }).getByRole('row').filter({ hasText: 'ci / web' });
    await row.waitFor();
    expect(await row.getByRole('button', { name: 'End session…' }).count()).toBe(0);
    await screenshotBothThemes(page, 'devices-held');
  });

  it('lets an Admin end the session from the Devices page: the device is free and the client’s next command is refused', async () => {
    const { page } = adminPage;
    await page.goto(`${relay.url}/devices`);
    const row = page.getByRole('table', { name: 'Devices' }).getByRole('row').filter({ hasText: 'ci / web' });
    await row.getByRole('button', { name: 'End session…' }).click();
    const dialog = page.getByRole('alertdialog', { name: /End the session on/ });
    await dialog.getByRole('button', { name: 'End session' }).click();
    // The dialog closes once the relay answered; then the row no longer names a holder.
    await dialog.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    const late = await relay.http().get(`/wd/hub/session/${hubSession}/source`);
    expect(late.body.value).toEqual({ error: 'invalid session id', message: `Session ${hubSession} ended (ended by an Admin)`, stacktrace: '' });
    const devices = await members.as(admin, 'get', '/api/v1/devices').expect(200);
    expect(devices.body.items.find((d: { session_id: string }) => d.session_id === DEVICE).holder).toBeNull();
  });

  it('keeps the ended session with the build: its evidence and command timeline on the build page', async () => {
    await relay.app.get(HubSessionEvidence).settled();
    const { page } = qaPage;
    await page.goto(`${relay.url}/builds/${build.id}`);
    const session = page.getByRole('article', { name: `ci / web on ${DEVICE}` });
    await session.getByText(/ended \(ended by an Admin\)/).waitFor();
    await session.getByRole('link', { name: 'Final screenshot' }).waitFor();
    await session.getByRole('link', { name: 'Device log (logcat)' }).waitFor();
    await session.getByText('Commands', { exact: true }).click();
    const commands = session.getByRole('table', { name: `Commands of ci / web on ${DEVICE}` });
    // The client sent no command before it was ended (the late one was refused, not the session's); the relay's own reads are not listed.
    expect(await commands.getByRole('row').count()).toBe(1);
    await session.scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, 'build-hub-session');
  });
});
