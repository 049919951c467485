import type { Browser, Page } from 'playwright-core';
import type { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { solidPng } from '../../src/agent-daemon/backends/png-image';
import { agentToken, startFakeAgent } from '../agents/agent-kit';
import { attachBuild } from '../support/build-fixtures';
import {
  browserSkipReason,
  dispatchFileEvent,
  ensureWebBuilt,
  launchChromium,
  newContext,
  screenshotBothThemes,
  signedInPage,
  waitFor,
  watchedPage,
  WEB_DIST,
  type WatchedPage,
} from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const AGENT = 'lab';
const MAX_BUILD_BYTES = 1_000_000;

/**
 * Issue 24 item 7 in real headless Chromium: pages that hold up at 375 px, on a signed-out first
 * visit, on an invitation link, with files the relay would refuse, and the device panel's UI tree.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: pages that hold up (issue 24 item 7)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let agent: AgentDaemon;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_MAX_BUILD_BYTES: String(MAX_BUILD_BYTES) });
    members = new MemberFactory(relay);
    admin = await members.admin();
    agent = await startFakeAgent(relay, await agentToken(members), AGENT);
    browser = await launchChromium();
    watched = await signedInPage(await newContext(browser), relay.url, admin.cookie);
    opened.push(watched);
    page = watched.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await relay?.close();
  });

  afterEach(() => {
    for (const w of opened) expect(w.problems.splice(0)).toEqual([]);
  });

  const url = (path: string) => relay.url + path;
  const upload = (name: string, fields: Record<string, string> = {}) =>
    attachBuild(members.as(admin, 'post', '/api/v1/builds'), name, fields).expect(201).then((res) => res.body as { id: number; app_id: number });

  it('a signed-out first visit logs nothing in the console (the probe answers 200, not 401)', async () => {
    const fresh = await watchedPage(await newContext(browser));
    opened.push(fresh);
    const probes: string[] = [];
    fresh.page.on('response', (response) => {
      if (response.url().includes('/api/v1/auth/')) probes.push(`${new URL(response.url()).pathname} ${response.status()}`);
    });
    await fresh.page.goto(url('/builds'));
    await fresh.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(probes).toContain('/api/v1/auth/session 200');
    expect(probes.filter((p) => !p.endsWith(' 200'))).toEqual([]);
    await fresh.page.close();
  });

  it('at 375 px every section of the nav is in sight, and the inbox fits without sideways scrolling', async () => {
    await upload('string-label.apk', { status: 'In Progress', label: 'feature/a-rather-long-branch-name' });
    await upload('xml-root.app.zip');
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(url('/builds'));
    await page.getByRole('row').filter({ hasText: 'Résumé Viewer' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    const links = await nav.getByRole('link').all();
    expect(await Promise.all(links.map((l) => l.textContent()))).toEqual(['Builds', 'Apps', 'Devices', 'Agents', 'Integrations']);
    for (const link of links) {
      const box = (await link.boundingBox())!;
      expect({ link: await link.textContent(), inside: box.x >= 0 && box.x + box.width <= 375 }).toEqual({ link: await link.textContent(), inside: true });
    }
    // Nothing scrolls sideways: not the page, not the nav, not the table's own box (the last column was cut there).
    const widths = await page.evaluate(() => {
      const wrap = document.querySelector('table')!.parentElement!;
      const navigation = document.querySelector('nav[aria-label="Main"]')!;
      return { page: document.scrollingElement!.scrollWidth <= 375, table: wrap.scrollWidth - wrap.clientWidth, nav: navigation.scrollWidth - navigation.clientWidth };
    });
    expect(widths).toEqual({ page: true, table: 0, nav: 0 });
    await screenshotBothThemes(page, 'inbox-375px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('one tab stop per inbox row, and the Android badge says Android', async () => {
    await page.goto(url('/builds'));
    const rows = page.locator('tbody tr');
    await rows.first().waitFor();
    const stops = await rows.evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll<HTMLElement>('a, button, input, select, textarea, [tabindex]')).filter((el) => el.tabIndex >= 0).length),
    );
    expect(stops).toEqual(stops.map(() => 1));
    const android = page.getByRole('row').filter({ hasText: 'Résumé Viewer' });
    expect(await android.getByText('Android', { exact: true }).count()).toBe(1);
    // Tab goes from one row's link to the next row's link.
    await page.locator('tbody tr a').first().focus();
    await page.waitForURL(/selected=/); // focusing a row selects it
    await page.keyboard.press('Tab');
    await waitFor(() => page.evaluate(() => document.activeElement === document.querySelectorAll('tbody tr a')[1]));
  });

  it('the invitation page says who invited which address to which team; a used one says it was used', async () => {
    await members.as(admin, 'patch', '/api/v1/settings').field('team_name', 'Payments Crew').expect(200);
    await members.as(admin, 'patch', '/api/v1/profile').field('display_name', 'Ada Admin').expect(200);
    const invite = await members.as(admin, 'post', '/api/v1/team/invite').send({ email: 'grace@example.com', role: 'Developer' }).expect(201);
    const guest = await watchedPage(await newContext(browser));
    opened.push(guest);
    // Expected: the refused short password, and the used invitation's 410.
    guest.allow.push(/status of 400 .*\/api\/v1\/invitations\/accept\)$/, /status of 410 .*\/api\/v1\/invitations\/verify\?token=/);
    await guest.page.goto(url(`/invite?token=${invite.body.token}`));
    await guest.page.getByRole('heading', { name: 'Join Payments Crew' }).waitFor();
    expect(await guest.page.locator('p', { hasText: 'invited grace' }).textContent()).toBe('Ada Admin invited grace@example.com to Payments Crew as Developer. Choose a password to create your account.');
    expect(await guest.page.getByLabel('E-mail').inputValue()).toBe('grace@example.com');
    // The relay's refusal, as a sentence, at its field.
    await guest.page.getByLabel('Password', { exact: true }).fill('short');
    await guest.page.getByRole('button', { name: 'Join the team' }).click();
    const refusal = await guest.page.getByRole('alert').first().textContent();
    expect(refusal).toMatch(/^Password [^]*\.$/);

    await relay.http().post('/api/v1/invitations/accept').field('token', invite.body.token).field('password', 'grace password').expect(200);
    await guest.page.reload();
    await guest.page.getByRole('heading', { name: 'This invitation was already used' }).waitFor();
    expect(await guest.page.getByText(/expired/).count()).toBe(0);
    await screenshotBothThemes(guest.page, 'invitation-used');
    await guest.page.close();
  });

  it('files the relay would refuse are refused in the browser, before anything is sent', async () => {
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await page.goto(url('/builds'));
    await page.getByRole('heading', { name: 'Builds' }).waitFor();
    const inbox = 'section[aria-labelledby="inbox-title"]';
    await dispatchFileEvent(page, inbox, 'drop', { name: 'App.ipa', type: 'application/octet-stream', bytes: Buffer.alloc(100) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(/App\.ipa is not a build the relay takes \(an \.ipa is a device build; upload a simulator build\)/).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await dispatchFileEvent(page, inbox, 'drop', { name: 'huge.apk', type: 'application/vnd.android.package-archive', bytes: Buffer.alloc(1_500_000) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('huge.apk is 1.4 MB: this relay takes builds of at most 977 KB.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();

    // Comment pictures: type and size.
    const build = await upload('string-label.apk');
    await page.goto(url(`/builds/${build.id}`));
    await page.getByLabel('Attach image').setInputFiles({ name: 'anim.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await page.getByText('anim.gif is not a PNG, JPEG or WebP image of at most 5 MB.').waitFor();
    await page.getByLabel('Attach image').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(5 * 1024 * 1024 + 1) });
    await page.getByText('big.png is 5.0 MB: it must be a PNG, JPEG or WebP image of at most 5 MB.').waitFor();
    expect(await page.getByAltText('Attachment preview').count()).toBe(0);

    // Profile pictures: PNG or JPEG, 2 MB, refused at the field.
    await page.goto(url('/account'));
    await page.getByLabel('Profile picture').setInputFiles({ name: 'me.webp', mimeType: 'image/webp', buffer: Buffer.from('RIFF') });
    await page.getByRole('alert').filter({ hasText: 'me.webp is not a PNG or JPEG image of at most 2 MB.' }).waitFor();
    expect(sent).toEqual([]);
  });

  it('comments: links are links (no markup injected), pictures fit the column and open full size', async () => {
    const build = await upload('string-label.apk');
    const body = 'Crash log at https://ci.example.com/runs/42. <b>not bold</b> <img src=x onerror=alert(1)>';
    await members
      .as(admin, 'post', '/api/v1/comments')
      .field('build_id', String(build.id))
      .field('body', body)
      .attach('attachment', solidPng(2400, 1600, [30, 120, 200]), 'wide.png')
      .expect(201);
    await page.goto(url(`/builds/${build.id}`));
    const comment = page.locator('li').filter({ hasText: 'Crash log at' });
    const link = comment.getByRole('link', { name: 'https://ci.example.com/runs/42' });
    await link.waitFor();
    expect(await link.evaluate((a) => [a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')])).toEqual([
      'https://ci.example.com/runs/42',
      '_blank',
      'noopener noreferrer',
    ]);
    expect(await comment.locator('b, img[src="x"]').count()).toBe(0);
    expect(await comment.textContent()).toContain('<b>not bold</b> <img src=x onerror=alert(1)>');

    const picture = comment.getByRole('img', { name: /^Attachment to the comment/ });
    await waitFor(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    const [imageBox, columnBox] = [(await picture.boundingBox())!, (await comment.boundingBox())!];
    expect(imageBox.width).toBeLessThanOrEqual(columnBox.width);
    expect(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2400);
    const [full] = await Promise.all([page.context().waitForEvent('page'), picture.click()]);
    await full.waitForLoadState();
    expect(new URL(full.url()).pathname).toMatch(/^\/uploads\/comments\/[^/]+\.png$/);
    await full.close();
  });

  it('the Apps page shows icons and build counts; the team list shows avatars', async () => {
    const withIcon = await upload('icons/mipmap-icon.apk');
    await upload('string-label.apk');
    await upload('string-label.apk');
    await members.as(admin, 'patch', '/api/v1/profile').attach('avatar', solidPng(40, 40, [200, 80, 40]), 'me.png').expect(200);
    const apps = (await members.as(admin, 'get', '/api/v1/apps').expect(200)).body.items as { id: number; name: string; build_count: number; icon_url: string | null }[];
    const iconApp = apps.find((a) => a.id === withIcon.app_id)!;
    expect(iconApp.icon_url).toBe(`/api/v1/apps/${iconApp.id}/icon`);

    await page.goto(url('/apps'));
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: iconApp.name }) });
    await card.waitFor();
    await card.getByText('1 build', { exact: true }).waitFor();
    const icon = card.locator(`img[src="${iconApp.icon_url}"]`);
    await waitFor(() => icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    const resume = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Résumé Viewer' }) });
    const count = apps.find((a) => a.name === 'Résumé Viewer')!.build_count;
    expect(count).toBeGreaterThan(1);
    await resume.getByText(`${count} builds`, { exact: true }).waitFor();

    await members.member('QA', 'lin@example.com');
    await page.goto(url('/team'));
    const row = page.getByRole('list', { name: 'Members' }).getByRole('listitem', { name: 'Ada Admin' });
    const avatar = row.locator('img[src^="/uploads/avatars/"]');
    await waitFor(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 40));
    await page.getByRole('list', { name: 'Members' }).getByRole('listitem', { name: 'lin' }).getByText('L', { exact: true }).waitFor(); // no picture: a letter
  });

  it('the device panel: a searchable UI hierarchy beside the screen, selection outlined on it; attach defaults to the device’s platform', async () => {
    const android = await upload('string-label.apk');
    await upload('xml-root.app.zip'); // newer, but iOS
    await page.goto(url(`/devices/fake-android-${AGENT}`));
    await page.getByRole('img', { name: 'Screen of Pixel 8' }).waitFor();
    const tree = page.getByRole('list', { name: 'UI elements by hierarchy' });
    const signIn = tree.getByRole('button', { name: /^button “Sign in” #login_button$/ });
    await signIn.waitFor();
    // Nested under the window that holds it; collapsing the window hides it.
    await page.getByRole('button', { name: 'Collapse window #root' }).click();
    expect(await signIn.count()).toBe(0);
    await page.getByRole('button', { name: 'Expand window #root' }).click();
    await signIn.waitFor();

    const search = page.getByRole('searchbox', { name: 'Search the UI tree' });
    for (const [term, shown] of [['welcome', 'title'], ['LOGIN_B', 'login_button'], ['text', 'title']] as const) {
      await search.fill(term);
      await waitFor(async () => (await tree.getByRole('button', { pressed: false }).allTextContents()).join('|').includes(`#${shown}`));
      const names = await tree.getByRole('button', { pressed: false }).allTextContents();
      expect(names.filter((n) => n.includes('#title') || n.includes('#login_button'))).toEqual([expect.stringContaining(`#${shown}`)]);
    }
    await search.fill('nothing like it');
    await page.getByText('No element matches “nothing like it”.').waitFor();
    await search.fill('');

    await signIn.click();
    expect(await signIn.getAttribute('aria-pressed')).toBe('true');
    const screen = (await page.getByRole('img', { name: 'Screen of Pixel 8' }).boundingBox())!;
    const outline = (await page.getByTestId('selected-element').boundingBox())!;
    // The fake tree's "Sign in": x 0.1, y 0.8, 0.8 × 0.075 of the screen.
    expect(Math.abs(outline.x - (screen.x + 0.1 * screen.width))).toBeLessThan(3);
    expect(Math.abs(outline.y - (screen.y + 0.8 * screen.height))).toBeLessThan(3);
    expect(Math.abs(outline.width - 0.8 * screen.width)).toBeLessThan(4);
    expect(await page.getByRole('textbox', { name: 'Identifier' }).inputValue()).toBe('login_button');

    const form = page.getByRole('form', { name: 'Attach this screen to a comment' });
    const chosen = form.getByLabel('Build');
    await waitFor(async () => (await chosen.inputValue()) === String(android.id));
    expect(await chosen.locator('option:checked').textContent()).toMatch(/Android$/);
    await screenshotBothThemes(page, 'device-tree');
  });
});
