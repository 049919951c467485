import { getRepositoryToken } from '@nestjs/typeorm';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Repository } from 'typeorm';
import { AgentResourceSampleEntity } from '../../src/agents/resources/agent-resource-sample.entity';
import { MINUTE_MS } from '../../src/common/time';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, paintedPixels, signedInPage, waitFor, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { LoopbackListener } from '../webhooks/support/loopback-listener';

/**
 * Issue 24 item 5 in the browser: the triage toast says how many webhooks were notified (none
 * too) and offers Undo; svc.config.json webhooks on the Webhooks page; a lone CPU sample's axis.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: truthful feedback (issue 24 item 5)', () => {
  let bare: TestRelay; // no webhook at all
  let withFile: TestRelay; // one svc.config.json webhook, on loopback
  let hooks: LoopbackListener;
  let configDir: string;
  let browser: Browser;

  beforeAll(async () => {
    ensureWebBuilt();
    hooks = await LoopbackListener.start();
    configDir = mkdtempSync(join(tmpdir(), 'svc-feedback-'));
    writeFileSync(
      join(configDir, 'svc.config.json'),
      JSON.stringify({ webhooks: [{ url: `http://127.0.0.1:${hooks.port}/chat-bot?token=abc`, secretEnv: 'SVC_TEST_FEEDBACK_SECRET' }] }),
    );
    bare = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    withFile = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_CONFIG: join(configDir, 'svc.config.json'), SVC_TEST_FEEDBACK_SECRET: 'bot-secret' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await bare?.close();
    await withFile?.close();
    await hooks?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const factories = new Map<TestRelay, MemberFactory>();
  async function adminPage(relay: TestRelay): Promise<{ watched: WatchedPage; members: MemberFactory; admin: TestMember }> {
    const members = factories.get(relay) ?? new MemberFactory(relay);
    factories.set(relay, members);
    const admin = await members.admin();
    const watched = await signedInPage(await newContext(browser), relay.url, admin.cookie);
    return { watched, members, admin };
  }

  /** Selects the only build of the inbox with j and presses a triage key. */
  async function triage(page: Page, relay: TestRelay, key: string) {
    await page.goto(`${relay.url}/builds`);
    await page.getByRole('row').nth(1).waitFor();
    await page.locator('body').press('j');
    await page.locator('tr[aria-current="true"]').waitFor();
    await page.keyboard.press(key);
  }

  /** The toast viewport (Radix also announces each toast in a hidden live region elsewhere). */
  const toasts = (page: Page) => page.getByRole('region', { name: /^Notifications/ });

  const statusOf = async (relay: TestRelay, members: MemberFactory, admin: TestMember, id: number) =>
    (await members.as(admin, 'get', `/api/v1/builds/${id}`).expect(200)).body.status_label;

  it('with no webhook nor forge, 3 says so instead of "webhooks notified"', async () => {
    const { watched, members, admin } = await adminPage(bare);
    await uploadTestBuild(members, admin);
    await triage(watched.page, bare, '3');
    await toasts(watched.page).getByText(/: Done, no webhook or forge to notify\.$/).waitFor();
    expect(await toasts(watched.page).innerText()).not.toContain('webhooks notified');
    expect(watched.problems).toEqual([]);
  });

  it('with one webhook, 3 says 1 webhook notified; Undo sets the previous status and says the notification cannot be recalled', async () => {
    const { watched, members, admin } = await adminPage(withFile);
    const build = await uploadTestBuild(members, admin);
    await members.as(admin, 'patch', `/api/v1/builds/${build.id}`).send({ status_label: 'In Progress' }).expect(200);
    const { page } = watched;
    await triage(page, withFile, '3');
    const toast = toasts(page).getByRole('listitem').filter({ hasText: '1 webhook notified' });
    await toast.getByText(/: Done, 1 webhook notified\.$/).waitFor();
    await waitFor(() => hooks.hits.find((h) => h.headers['x-svc-event'] === 'build.status_changed'));
    expect(await statusOf(withFile, members, admin, build.id)).toBe('Done');

    await toast.getByRole('button', { name: 'Undo' }).click();
    await toasts(page)
      .getByText(/: back to In Progress\. What was already sent \(1 webhook\) cannot be recalled\.$/)
      .waitFor();
    expect(await statusOf(withFile, members, admin, build.id)).toBe('In Progress');
    await page.locator('tr[aria-current="true"]').getByText('In Progress').waitFor();
    await screenshotBothThemes(page, 'undo');
    expect(watched.problems).toEqual([]);
  });

  it('lists the svc.config.json webhook read-only, with a test delivery and its delivery log', async () => {
    const { watched } = await adminPage(withFile);
    const { page } = watched;
    await page.goto(`${withFile.url}/webhooks`);
    await page.getByText('No webhooks added here yet.').waitFor();
    const section = page.getByRole('region', { name: 'From svc.config.json' });
    const item = section.getByRole('listitem', { name: 'svc.config.json webhook 0' });
    await item.getByText(`http://127.0.0.1:${hooks.port}/…`).waitFor();
    await item.getByText('from svc.config.json (webhooks[0]) · signed').waitFor();
    await item.getByText('In use').waitFor();
    expect(await item.innerText()).not.toContain('token=abc');
    // Read-only: none of the API webhooks' controls.
    for (const name of [/Edit URL/, /^Delete/, /secret/i, /Enabled/]) expect(await item.getByRole('button', { name }).count()).toBe(0);
    expect(await item.getByRole('checkbox').count()).toBe(0);

    await item.getByRole('button', { name: 'Send test delivery' }).click();
    await item.getByRole('status').filter({ hasText: 'Test delivery: Delivered (HTTP 200)' }).waitFor();
    const log = item.getByRole('table', { name: 'Deliveries of svc.config.json webhook 0' });
    await log.getByRole('row').filter({ hasText: 'ping' }).waitFor();
    await log.getByRole('row').filter({ hasText: 'build.status_changed' }).waitFor(); // the Done of the test before
    await screenshotBothThemes(page, 'webhooks-config-file', true);
    expect(hooks.hits.some((h) => h.headers['x-svc-event'] === 'ping' && h.url === '/chat-bot?token=abc')).toBe(true);
    expect(watched.problems).toEqual([]);
  });

  it('a new agent\'s CPU chart with one sample: the time axis is two minutes around it, not years', async () => {
    const { watched } = await adminPage(bare);
    const at = bare.clock.nowMs() - 30_000;
    await bare.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity)).save({
      agentName: 'newcomer',
      minute: new Date(at - (at % MINUTE_MS)),
      recordedAt: new Date(at - (at % 1000)),
      cpuPercent: 12.5,
      memPercent: 40,
    });
    const { page } = watched;
    await page.goto(`${bare.url}/agents?agent=newcomer&range=1h`);
    const cpu = page.getByRole('figure', { name: 'CPU of newcomer, last 1h' });
    await cpu.getByText(/^CPU · 1 sample/).waitFor();
    const chart = cpu.getByRole('img', { name: /^CPU from / });
    await chart.waitFor();
    const [, from, to] = /^CPU from (\S+ \S+) to (\S+ \S+)$/.exec((await chart.getAttribute('aria-label')) ?? '') ?? [];
    const year = String(new Date(at).getFullYear());
    expect(from.slice(0, 4)).toBe(year);
    expect(to.slice(0, 4)).toBe(year);
    expect(Date.parse(`${to.replace(' ', 'T')}Z`) - Date.parse(`${from.replace(' ', 'T')}Z`)).toBe(2 * MINUTE_MS);
    // The lone sample is drawn (a point), not an empty chart.
    const painted = await paintedPixels(cpu.locator('canvas'));
    expect(painted).toBeGreaterThan(50);
    expect(watched.problems).toEqual([]);
  });
});
