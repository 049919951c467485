import { readFileSync, writeFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { forgeConfigPath } from '../forges/support/forge-relay';

/**
 * Issue 38 in headless Chromium: the build page shows the release gate's checklist (the rule not met,
 * by name), a QA member approves from the page and the checklist turns met; the inbox shows the
 * row's gate and filters by it (the relay's `gate` filter: a passed build on a page of one beside a newer failed one).
 * The main scenario: an app whose policy needs 2 QA approvals and an Admin's for a new
 * CAMERA permission; each approval given in the browser, the checklist and the inbox's badge follow.
 */
describeUnless(browserSkipReason(), 'release gate on the build page and in the inbox (issue 38)', () => {
  let browser: Browser;
  let relay: TestRelay;
  let developer: TestMember;
  let qa: TestMember;
  let members: MemberFactory;
  const opened: WatchedPage[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    const config = forgeConfigPath();
    writeFileSync(config, JSON.stringify({ releaseGate: { default: { approvals: { QA: 1 } } } }));
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_CONFIG: config });
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
    qa = await members.member('QA');
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) expect(w.problems).toEqual([]);
    for (const c of contexts.splice(0)) await c.close();
  });

  const openAs = async (member: TestMember, path: string, allow: RegExp[] = []) => {
    const context = await newContext(browser);
    contexts.push(context);
    const watched = await signedInPage(context, relay.url, member.cookie);
    watched.allow.push(...allow);
    opened.push(watched);
    await watched.page.goto(`${relay.url}${path}`);
    return watched.page;
  };

  it('shows the checklist, takes an approval from the page, and the inbox filters by the gate', async () => {
    const id = (await members.as(developer, 'post', '/api/v1/builds').attach('file', readFileSync(fixture('string-label.apk')), 'string-label.apk').expect(201)).body.id as number;
    const page = await openAs(qa, `/builds/${id}`);
    const checklist = page.getByRole('list', { name: 'Release gate checklist' });
    await checklist.getByRole('listitem', { name: '1 QA approval: not met' }).waitFor();
    await page.getByRole('heading', { name: 'Release gate: Failed' }).waitFor();

    await page.getByRole('textbox', { name: 'Review comment' }).fill('installs and logs in');
    await page.getByRole('button', { name: 'Approve' }).click();
    await checklist.getByRole('listitem', { name: '1 QA approval: met' }).waitFor();
    await page.getByRole('heading', { name: 'Release gate: Passed' }).waitFor();
    await page.getByRole('list', { name: 'Reviews' }).getByText('installs and logs in').waitFor();

    // A newer build of another app, still failed: with one build a page, only the relay's filter finds the passed one.
    await members.as(developer, 'post', '/api/v1/builds').attach('file', readFileSync(fixture('xml-root.app.zip')), 'xml-root.app.zip').expect(201);
    const inbox = await openAs(qa, '/builds?gate=passed&limit=1');
    await inbox.getByRole('img', { name: 'Release gate passed' }).waitFor();
    await inbox.getByRole('combobox', { name: 'Release gate' }).selectOption('failed');
    await inbox.getByRole('img', { name: 'Release gate failed' }).waitFor();
    await inbox.getByRole('img', { name: 'Release gate passed' }).waitFor({ state: 'detached' });
    expect(new URL(inbox.url()).searchParams.get('gate')).toBe('failed');
  }, 120_000);

  it('shows the file\'s default read-only in the team settings, and names the rule of an invalid app policy', async () => {
    const admin = await members.admin();
    // The invalid policy's 400 is the point: the browser logs it, the form shows its message.
    const page = await openAs(admin, '/settings', [/400 \(Bad Request\).*release-gate\/policies\/apps/]);
    const section = page.getByRole('region', { name: 'Release gate' });
    await section.getByText('from svc.config.json (read-only)').waitFor();
    await section.getByRole('combobox', { name: 'Give an app its own policy' }).selectOption({ label: 'Résumé Viewer' });
    const form = section.getByRole('form', { name: 'Résumé Viewer policy' });
    await form.getByRole('textbox', { name: 'Policy (JSON; empty removes it)' }).fill('{ "rules": [{ "when": "new_permission", "permissions": [], "then": "block" }] }');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await form.getByText('rules[0] (new_permission).permissions: must be a non-empty array of permission names', { exact: false }).waitFor();
  }, 120_000);

  it('two QA approvals and a new permission: the checklist names what is missing until the named role approves', async () => {
    const admin = await members.admin();
    const qa2 = await members.member('QA');
    const upload = async (file: string) =>
      (await members.as(developer, 'post', '/api/v1/builds').attach('file', readFileSync(fixture(file)), 'shop.apk').expect(201)).body as { id: number; app_id: number };
    const { app_id: appId } = await upload('contents/shop-1.apk');
    const camera = { when: 'new_permission', permissions: ['android.permission.CAMERA'], then: 'require_approval', role: 'Admin' };
    await members.as(admin, 'put', `/api/v1/release-gate/policies/apps/${appId}`).send({ policy: { approvals: { QA: 2 }, rules: [camera] } }).expect(200);
    const { id } = await upload('contents/shop-2.apk');

    const approvals = (page: Awaited<ReturnType<typeof openAs>>, outcome: string) => page.getByRole('list', { name: 'Release gate checklist' }).getByRole('listitem', { name: `2 QA approvals: ${outcome}` });
    const permission = (page: Awaited<ReturnType<typeof openAs>>, outcome: string) =>
      page.getByRole('list', { name: 'Release gate checklist' }).getByRole('listitem', { name: `New permission from android.permission.CAMERA: needs an approval by Admin: ${outcome}` });
    const approve = async (member: TestMember) => {
      const page = await openAs(member, `/builds/${id}`);
      await page.getByRole('heading', { name: /^Release gate: / }).waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();
      return page;
    };

    const first = await approve(qa);
    await approvals(first, 'not met').getByText(/needs 1 more QA approval \(1 of 2: .+\)/).waitFor();
    await permission(first, 'not met').waitFor();
    await first.getByRole('heading', { name: 'Release gate: Failed' }).waitFor();

    const second = await approve(qa2);
    await approvals(second, 'met').waitFor();
    await permission(second, 'not met').getByText(/new permission android\.permission\.CAMERA since build #\d+: needs an approval by Admin/).waitFor();
    await second.getByRole('heading', { name: 'Release gate: Failed' }).waitFor();
    const inbox = await openAs(qa, '/builds');
    const row = inbox.getByRole('row').filter({ has: inbox.getByLabel(`Build number ${id}`, { exact: true }) });
    await row.getByRole('img', { name: 'Release gate failed' }).waitFor();

    const third = await approve(admin);
    await permission(third, 'met').waitFor();
    await approvals(third, 'met').waitFor();
    await third.getByRole('heading', { name: 'Release gate: Passed' }).waitFor();
    await inbox.reload();
    await row.getByRole('img', { name: 'Release gate passed' }).waitFor();
  }, 120_000);
});
