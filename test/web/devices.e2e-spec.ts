import { getRepositoryToken } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { Repository } from 'typeorm';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { AgentResourceSampleEntity } from '../../src/agents/resources/agent-resource-sample.entity';
import { MINUTE_MS } from '../../src/common/time';
import { agentToken, startFakeAgent, TestPeer, wsUrl } from '../agents/agent-kit';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, paintedPixels, screenshotBothThemes, WEB_DIST, signedInPage, type WatchedPage } from '../support/browser';
import { fixture } from '../support/build-fixtures';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const AGENT = 'lab';

/**
 * Issue 13 items 4 and 5 in the browser, against a relay with the reference agent's fake backend
 * connected (`svc agent --fake`): agents with their charts, the device list, the live device panel.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: agents and devices (issue 13)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let agent: AgentDaemon;
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    members = new MemberFactory(relay);
    admin = await members.admin();
    agent = await startFakeAgent(relay, await agentToken(members), AGENT);
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, admin.cookie);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await relay?.close();
  });

  afterEach(() => {
    expect(watched.problems.splice(0)).toEqual([]);
  });

  /** Stored samples, one a minute for `minutes` minutes back: what the charts are drawn from. */
  async function storeSamples(name: string, minutes: number) {
    const repo = relay.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity));
    const now = relay.clock.nowMs();
    const rows = Array.from({ length: minutes }, (_, i) => {
      const at = now - (minutes - i) * MINUTE_MS;
      return {
        agentName: name,
        minute: new Date(at - (at % MINUTE_MS)),
        recordedAt: new Date(at - (at % 1000)),
        cpuPercent: 20 + 15 * Math.sin(i / 7),
        memPercent: 40 + i / 10,
      };
    });
    await repo.save(rows);
    return rows;
  }

  it('agents: online with version, OS, host and devices; CPU and RAM charts drawn from stored samples, per range', async () => {
    const stored = await storeSamples('archived', 300);
    const { page } = watched;
    const chunks: string[] = [];
    page.on('request', (request) => chunks.push(request.url()));
    await page.goto(`${relay.url}/agents?agent=archived&range=6h`);
    const table = page.getByRole('table', { name: 'Agents' });
    const lab = table.getByRole('row').filter({ hasText: AGENT });
    await lab.getByText('Online').waitFor();
    expect(await lab.textContent()).toContain('3 (2 booted)');
    expect(await lab.textContent()).toContain('test'); // the fake agent's version
    await table.getByRole('row').filter({ hasText: 'archived' }).getByText('Offline').waitFor();

    const cpu = page.getByRole('figure', { name: 'CPU of archived, last 6h' });
    const ram = page.getByRole('figure', { name: 'RAM of archived, last 6h' });
    await cpu.getByText(/^CPU · 300 samples · latest \d+\.\d %$/).waitFor();
    await ram.getByText('RAM · 300 samples · latest 69.9 %').waitFor();
    // uPlot drew into a canvas: something other than the background was painted.
    const painted = await paintedPixels(cpu.locator('canvas'));
    expect(painted).toBeGreaterThan(500);
    // uPlot came in a chunk of its own, fetched by this page.
    expect(chunks.some((u) => /\/assets\/ResourceChart-[\w-]+\.js$/.test(u))).toBe(true);
    await screenshotBothThemes(page, 'agents', true);

    // The last hour is counted when the relay answers: the samples whose minute is at or after its
    // clock less an hour, for an answer within 15 s of the click (the count drops by one when a
    // sample's minute leaves the hour on the way; how late the click comes depends on the machine).
    const clickedAt = relay.clock.nowMs();
    const inLastHour = (at: number) => stored.filter((row) => row.minute.getTime() >= at - 60 * MINUTE_MS).length;
    const counts = [...new Set([inLastHour(clickedAt), inLastHour(clickedAt + 15_000)])];
    await page.getByRole('button', { name: '1h' }).click();
    await cpu.getByText('CPU · 300 samples').waitFor({ state: 'detached' });
    await page.getByRole('figure', { name: 'CPU of archived, last 1h' }).getByText(new RegExp(`^CPU · (${counts.join('|')}) samples`)).waitFor();
    expect(new URL(page.url()).searchParams.get('range')).toBeNull();
  });

  it('devices: every device of every agent with its state, platform, OS and agent', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Devices', exact: true }).click();
    const table = page.getByRole('table', { name: 'Devices' });
    await table.getByRole('row').filter({ hasText: 'iPhone 16' }).waitFor();
    const rows = await table.getByRole('row').allTextContents();
    expect(rows.slice(1)).toEqual([
      expect.stringMatching(/iPad Air.*iOS.*17\.5.*Shut down.*lab \(online\)/),
      expect.stringMatching(/iPhone 16.*iOS.*18\.2.*Booted.*lab \(online\)/),
      expect.stringMatching(/Pixel 8.*Android.*15.*Booted.*lab \(online\)/),
    ]);
    await screenshotBothThemes(page, 'devices');
  });

  it('live device panel: the screen refreshes about once a second, pauses while hidden, and the UI tree overlay names each element', async () => {
    const { page } = watched;
    const captures: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/api/v1/sessions/fake-ios-${AGENT}/screenshot`)) captures.push(request.url());
    });
    await page.getByRole('table', { name: 'Devices' }).getByRole('link', { name: 'iPhone 16' }).click();
    await page.getByRole('heading', { name: 'iPhone 16 (iOS 18.2)' }).waitFor();
    await page.getByRole('img', { name: 'Screen of iPhone 16' }).waitFor();
    // A refreshing screen: several captures, each a new picture on the page.
    await page.getByRole('status').filter({ hasText: /^Live · [3-9]\d* frames$/ }).waitFor();
    expect(captures.length).toBeGreaterThanOrEqual(3);

    const overlay = page.getByRole('group', { name: 'UI elements' });
    const signIn = overlay.getByRole('button', { name: 'button: Sign in (login_button)' });
    await signIn.waitFor();
    await overlay.getByRole('button', { name: 'text: Welcome (title)' }).waitFor();
    // The element sits where its frame says: 10 % from the left, 80 % from the top of the screen.
    const screenBox = (await page.getByRole('img', { name: 'Screen of iPhone 16' }).boundingBox())!;
    const box = (await signIn.boundingBox())!;
    expect(Math.round(((box.x - screenBox.x) / screenBox.width) * 100)).toBe(10);
    expect(Math.round(((box.y - screenBox.y) / screenBox.height) * 100)).toBe(80);
    await signIn.hover();
    await signIn.click();
    const details = page.getByRole('complementary', { name: 'Element details' });
    await details.getByText('Sign in', { exact: true }).waitFor();
    expect(await details.textContent()).toContain('Rolebutton');
    expect(await details.getByRole('textbox', { name: 'Identifier' }).inputValue()).toBe('login_button');
    await screenshotBothThemes(page, 'device-panel');

    // Hidden tab: no more captures until it is visible again.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: true, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.getByRole('status').filter({ hasText: 'Paused while this tab is hidden' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 500)); // a capture already under way may still finish
    const whilePaused = captures.length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(captures.length).toBe(whilePaused);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: false, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.getByRole('status').filter({ hasText: /^Live · / }).waitFor();
    const resumedFrom = captures.length;
    for (const deadline = Date.now() + 10_000; captures.length <= resumedFrom && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(captures.length).toBeGreaterThan(resumedFrom);
  });

  it('install on device: from the build page, install_build through the device-session socket; the agent downloads and answers', async () => {
    const { page } = watched;
    const build = await uploadTestBuild(members, admin);
    const sha256 = createHash('sha256').update(readFileSync(fixture('string-label.apk'))).digest('hex');
    await page.goto(`${relay.url}/builds/${build.id}`);
    const form = page.getByRole('form', { name: 'Install on device' });
    const select = form.getByRole('combobox', { name: 'Install on device' });
    await select.waitFor();
    // Only booted Android devices of online agents are offered for an APK.
    expect(await select.locator('option').allTextContents()).toEqual(['Pixel 8 (15) on lab']);
    await form.getByRole('button', { name: 'Install' }).click();
    const answer = form.getByRole('status');
    await answer.filter({ hasText: 'Installed on Pixel 8' }).waitFor();
    expect(await answer.textContent()).toContain(`SHA-256 ${sha256}`);
    await screenshotBothThemes(page, 'install-on-device', true);
  });

  it('attaches the screen on view to a comment on a build, as the picture the relay captured', async () => {
    const { page } = watched;
    const build = await uploadTestBuild(members, admin);
    await page.goto(`${relay.url}/devices/fake-android-${AGENT}?build=${build.id}`);
    await page.getByRole('img', { name: 'Screen of Pixel 8' }).waitFor();
    const form = page.getByRole('form', { name: 'Attach this screen to a comment' });
    expect(await form.getByRole('combobox', { name: 'Build' }).inputValue()).toBe(String(build.id));
    await form.getByRole('textbox', { name: 'Comment' }).fill('Login button cut off on the Pixel');
    await form.getByRole('button', { name: 'Attach this screen to a comment' }).click();
    await form.getByRole('status').filter({ hasText: 'Comment posted.' }).waitFor();

    const comments = await members.as(admin, 'get', `/api/v1/comments?build_id=${build.id}`).expect(200);
    const [comment] = comments.body;
    expect(comment.body).toBe('Login button cut off on the Pixel');
    expect(comment.attachments).toHaveLength(1);
    const stored = await members.as(admin, 'get', comment.attachments[0].file_path).buffer(true).expect(200);
    const captured = await members.as(admin, 'get', `/api/v1/sessions/fake-android-${AGENT}/screenshot?format=jpeg`).buffer(true).expect(200);
    expect(Buffer.compare(stored.body, captured.body)).toBe(0);

    await form.getByRole('link', { name: 'Open the build' }).click();
    await page.getByText('Login button cut off on the Pixel').waitFor();
  });

  it('tap and type from the panel reach the device through the device-session socket', async () => {
    const { page } = watched;
    // Another client of the same session hears the fake device echo each input as an event.
    const listener = new TestPeer(wsUrl(relay, `/api/v1/sessions/fake-ios-${AGENT}/connect`), {
      Authorization: `Bearer ${await members.pat(admin, 'view')}`,
    });
    await listener.opened;
    await page.goto(`${relay.url}/devices/fake-ios-${AGENT}`);
    await page.getByRole('group', { name: 'UI elements' }).getByRole('button', { name: 'button: Sign in (login_button)' }).click();
    await page.getByRole('button', { name: 'Tap this element' }).click();
    await page.getByRole('status').filter({ hasText: 'Tapped at 50 %, 84 %' }).waitFor();
    const tapped = await listener.next((m) => m.json?.type === 'event' && m.json.event === 'tapped');
    expect(tapped.json.data).toEqual({ x: 0.5, y: 0.8375 });

    await page.getByRole('textbox', { name: 'Type text' }).fill('qa@example.com');
    await page.getByRole('button', { name: 'Send text' }).click();
    await page.getByRole('status').filter({ hasText: 'Typed 14 characters' }).waitFor();
    const typed = await listener.next((m) => m.json?.type === 'event' && m.json.event === 'type_text');
    expect(typed.json.data).toEqual({ text: 'qa@example.com' });
    listener.close();
  });

  it('a wall of the booted devices, each screen live, and a pop-out window of one device', async () => {
    const { page } = watched;
    await page.goto(`${relay.url}/devices`);
    await page.getByRole('link', { name: 'Wall of booted devices' }).click();
    await page.getByRole('heading', { name: 'Device wall' }).waitFor();
    for (const name of ['iPhone 16', 'Pixel 8']) {
      const tile = page.getByRole('figure', { name: `Device screen: ${name}` });
      await tile.getByRole('img', { name: `Screen of ${name}` }).waitFor();
      await tile.getByRole('status').filter({ hasText: /^Live · [2-9]\d* frames$/ }).waitFor();
    }
    expect(await page.getByRole('figure', { name: 'Device screen: iPad Air' }).count()).toBe(0); // shut down
    await screenshotBothThemes(page, 'device-wall');

    await page.goto(`${relay.url}/devices/fake-android-${AGENT}`);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Pop out' }).click()]);
    await popup.getByRole('img', { name: 'Screen of Pixel 8' }).waitFor();
    await popup.getByRole('status').filter({ hasText: /^Live · [2-9]\d* frames$/ }).waitFor();
    expect(new URL(popup.url()).pathname).toBe(`/devices/fake-android-${AGENT}/screen`);
    expect(await popup.getByRole('navigation', { name: 'Main' }).count()).toBe(0); // the screen alone
    await popup.close();
  });

  it('a Viewer sees the live panel and the element details but no tap or typing controls', async () => {
    const viewer = await members.member('Viewer');
    const v = await signedInPage(await newContext(browser), relay.url, viewer.cookie);
    try {
      await v.page.goto(`${relay.url}/devices/fake-ios-${AGENT}`);
      await v.page.getByRole('group', { name: 'UI elements' }).getByRole('button', { name: 'button: Sign in (login_button)' }).click();
      await v.page.getByRole('textbox', { name: 'Identifier' }).waitFor();
      expect(await v.page.getByRole('button', { name: 'Tap this element' }).count()).toBe(0);
      expect(await v.page.getByRole('textbox', { name: 'Type text' }).count()).toBe(0);
      expect(v.problems).toEqual([]);
    } finally {
      await v.page.context().close();
    }
  });
});
