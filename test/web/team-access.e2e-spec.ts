import type { Browser, BrowserContext, Page } from 'playwright-core';
import { solidPng } from '../../src/agent-daemon/backends/png-image';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, screenshotBothThemes, watchedPage, WEB_DIST, type WatchedPage } from '../support/browser';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, sessionCookieFrom, type TestMember } from '../support/factory';
import { linkIn, SmtpSink } from '../support/smtp-sink';
import { startTestRelay, type TestRelay } from '../support/test-relay';

const RELAY_URL = 'https://relay.example.com';

/**
 * Issue 13, items 1, 2 and 6 in real headless Chromium: the Team page (invitations, roles, the
 * last-Admin rule shown), tokens shown once, profile and team settings reaching the header at once,
 * and the Relay page. Tests run in order on one relay, signed in as its first Admin.
 */
describeUnless(browserSkipReason(), 'dashboard in the browser: team, tokens, profile, relay (issue 13)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let smtp: SmtpSink;
  let admin: TestMember;
  let browser: Browser;
  let context: BrowserContext;
  let watched: WatchedPage;
  let page: Page;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    smtp = await new SmtpSink().start();
    relay = await startTestRelay({ ...smtp.env(), SVC_WEB_DIR: WEB_DIST, SVC_RELAY_URL: RELAY_URL });
    members = new MemberFactory(relay);
    admin = await members.admin();
    browser = await launchChromium();
    context = await signedInContext(admin);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: relay.url });
    watched = await watchedPage(context);
    opened.push(watched);
    page = watched.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await smtp?.close();
  });

  afterEach(() => {
    for (const w of opened) expect(w.problems.splice(0)).toEqual([]);
  });

  async function signedInContext(member: TestMember, options: Parameters<typeof newContext>[1] = {}): Promise<BrowserContext> {
    const ctx = await newContext(browser, options);
    const [name, value] = member.cookie.split('=');
    await ctx.addCookies([{ name, value, url: relay.url, httpOnly: true, sameSite: 'Lax' }]);
    return ctx;
  }

  const url = (path: string) => relay.url + path;
  const memberRow = (name: string) => page.getByRole('list', { name: 'Members' }).getByRole('listitem', { name });

  it('the Team page: the only Admin’s role and removal are disabled with the reason shown', async () => {
    await page.goto(url('/builds'));
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Team', exact: true }).click();
    await page.getByRole('heading', { name: 'Team', exact: true }).waitFor();
    const role = page.getByLabel('Role of admin');
    await role.waitFor();
    expect(await role.isDisabled()).toBe(true);
    expect(await memberRow('admin').getByRole('button', { name: 'Remove admin' }).isDisabled()).toBe(true);
    const reason = memberRow('admin').getByText(/^The only Admin: their role cannot change/);
    await reason.waitFor();
    // The reason is the disabled control's description, so a screen reader says why too.
    expect(await role.getAttribute('aria-describedby')).toBe(await reason.getAttribute('id'));
  });

  it('invite a member: the link (copyable, as a QR code) and that the e-mail went out; they join, get Admin, and the rule lifts', async () => {
    await page.getByLabel('E-mail (optional)').fill('grace@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('Developer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const link = page.getByRole('textbox', { name: 'Invitation link', exact: true });
    await link.waitFor();
    const invite = await link.inputValue();
    expect(invite).toMatch(new RegExp(`^${RELAY_URL}/invite\\?token=[0-9a-f]{64}$`));
    await page.getByRole('img', { name: 'QR code of the invitation link' }).waitFor();
    await page.getByText(/^E-mailed to grace@example.com\./).waitFor();
    expect(linkIn(await smtp.lastTo('grace@example.com'), '/invite')).toBe(invite);
    await page.getByRole('button', { name: 'Copy Invitation link' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(invite);
    const open = page.getByRole('list', { name: 'Open invitations' });
    await open.getByText('grace@example.com').waitFor();
    await open.getByText(/^Developer · created/).waitFor();
    await screenshotBothThemes(page, 'team', true);

    const token = new URL(invite).searchParams.get('token')!;
    const joined = await relay.http().post('/api/v1/invitations/accept').field('token', token).field('password', 'grace password').field('display_name', 'Grace').expect(200);
    const graceCookie = sessionCookieFrom(joined.headers['set-cookie']);
    await page.reload();
    await memberRow('Grace').waitFor();
    expect(await open.count()).toBe(0); // accepted: no open invitation is left

    await page.getByLabel('Role of Grace').selectOption('Admin');
    await until(() => page.getByLabel('Role of admin').isEnabled());
    expect(await memberRow('admin').getByText(/^The only Admin/).count()).toBe(0);
    expect(await roleOf('grace@example.com')).toBe('Admin');

    // Demoting yourself (another Admin remains) takes the page away at once, not after a 403.
    await page.getByLabel('Role of admin').selectOption('Developer');
    await page.getByText('Only Admins can see the team. Your role is Developer.').waitFor();
    await relay.http().patch(`/api/v1/team/members/${admin.id}`).set('Cookie', graceCookie).send({ role: 'Admin' }).expect(200);
    await page.reload();
    await memberRow('Grace').waitFor();

    await page.getByLabel('Role of Grace').selectOption('QA');
    await until(() => page.getByLabel('Role of admin').isDisabled());
    await memberRow('admin').getByText(/^The only Admin/).waitFor();
    expect(await roleOf('grace@example.com')).toBe('QA');
  });

  it('an invitation without e-mail is revoked after confirming, and its link stops working', async () => {
    const link = page.getByRole('textbox', { name: 'Invitation link', exact: true });
    const previous = (await link.count()) ? await link.inputValue() : null; // an earlier invitation's link may still show
    await page.getByLabel('E-mail (optional)').fill('');
    await page.getByLabel('Role', { exact: true }).selectOption('Viewer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const open = page.getByRole('list', { name: 'Open invitations' });
    await open.getByText('Without e-mail').waitFor();
    await until(async () => (await link.count()) > 0 && (await link.inputValue()) !== previous);
    const token = new URL(await link.inputValue()).searchParams.get('token')!;
    await relay.http().get(`/api/v1/invitations/verify?token=${token}`).expect(200);
    await page.getByText(/^No e-mail was sent/).waitFor();
    await open.getByRole('button', { name: 'Revoke invitation for Without e-mail' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await page.getByText('No open invitations.').waitFor();
    await relay.http().get(`/api/v1/invitations/verify?token=${token}`).expect(410);
  });

  it('a password-reset link for a member, ready to copy, and e-mailed to them', async () => {
    await memberRow('Grace').getByRole('button', { name: 'New password reset link for Grace' }).click();
    const field = page.getByRole('textbox', { name: 'Password reset link for Grace', exact: true });
    await field.waitFor();
    const link = await field.inputValue();
    expect(link).toMatch(new RegExp(`^${RELAY_URL}/reset-password\\?token=`));
    await memberRow('Grace').getByText(/^E-mailed to grace@example.com\./).waitFor();
    expect(linkIn(await smtp.lastTo('grace@example.com'), '/reset-password')).toBe(link);
    await relay.http().get(`/api/v1/auth/reset-password/verify?token=${new URL(link).searchParams.get('token')}`).expect(200);
  });

  it('removing a member is confirmed first, naming what ends; then they are gone', async () => {
    await memberRow('Grace').getByRole('button', { name: 'Remove Grace' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove Grace?' });
    await dialog.getByText(/grace@example.com loses access at once/).waitFor();
    await dialog.getByRole('button', { name: 'Remove Grace' }).click();
    // While the modal is open the page behind it is aria-hidden, so the row "disappears" at once:
    // wait for the dialog to close (it does when the DELETE has answered) before asking for the row.
    await dialog.waitFor({ state: 'hidden' });
    await until(async () => (await memberRow('Grace').count()) === 0);
    const list = await relay.http().get('/api/v1/team/members').set('Cookie', admin.cookie).expect(200);
    expect(list.body.map((m: { email: string }) => m.email)).toEqual(['admin@example.com']);
  });

  it('a token is created with a name, scopes and expiry (the dashboard’s 1–365 rule), shown once with a CI snippet, then revoked', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Access tokens' }).click();
    await page.getByRole('heading', { name: 'Access tokens' }).waitFor();
    await page.getByText('No tokens yet.').waitFor();
    await page.getByLabel('Name').fill('GitHub Actions');
    await page.getByLabel('Expires in (days)').fill('400');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('alert').filter({ hasText: 'Expiry must be from 1 to 365 days' }).waitFor();
    expect((await relay.http().get('/api/v1/tokens').set('Cookie', admin.cookie).expect(200)).body).toEqual([]);

    await page.getByLabel('Expires in (days)').fill('30');
    await page.getByRole('checkbox', { name: /^agent:/ }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = page.getByRole('textbox', { name: 'Token', exact: true });
    await value.waitFor();
    const token = await value.inputValue();
    expect(token).toMatch(/^svc_pat_/);
    const snippet = await page.getByRole('textbox', { name: 'CI snippet', exact: true }).inputValue();
    expect(snippet).toContain(`export SVC_TOKEN=${token}`);
    expect(snippet).toContain(`export SVC_URL=${RELAY_URL}`);
    expect(snippet).toContain('svc upload app-release.apk');
    expect(snippet).toContain('curl -fsS -H "Authorization: Bearer $SVC_TOKEN" -F file=@app-release.apk');
    expect(snippet).toContain('svc agent --relay "$SVC_URL"');
    await page.getByRole('button', { name: 'Copy Token' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await screenshotBothThemes(page, 'tokens', true);

    const [issued] = (await relay.http().get('/api/v1/tokens').set('Cookie', admin.cookie).expect(200)).body;
    expect(issued).toMatchObject({ name: 'GitHub Actions', scope: 'view,builds:write,agent' });
    expect(Date.parse(issued.expires_at) - Date.parse(issued.created_at)).toBe(30 * 86_400_000);
    await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${token}`).expect(200);

    await page.reload();
    const row = page.getByRole('list', { name: 'Your tokens' }).getByRole('listitem', { name: 'GitHub Actions' });
    await row.getByText(/^Last used/).waitFor();
    await row.getByText(/expires in/).waitFor();
    const shown = await page.evaluate(() => document.body.innerText + [...document.querySelectorAll('input, textarea')].map((e) => (e as HTMLInputElement).value).join(' '));
    expect(shown).not.toContain('svc_pat_');

    await row.getByRole('button', { name: 'Revoke GitHub Actions' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('No tokens yet.').waitFor();
    await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('a profile name and picture, and the team name and logo, show in the header at once', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Profile and password' }).click();
    await page.getByLabel('Display name').fill('Ada Admin');
    await page.getByLabel('Profile picture').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(48, 48, [200, 80, 40]) });
    await page.getByRole('button', { name: 'Save profile' }).click();
    const account = page.getByRole('button', { name: 'Account: Ada Admin' });
    await account.waitFor();
    await until(() => account.locator('img').getAttribute('src').then((src) => src?.startsWith('/uploads/avatars/')));
    await screenshotBothThemes(page, 'profile', true);

    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Team settings' }).click();
    const name = page.getByLabel('Team name');
    await until(async () => (await name.inputValue()) !== '');
    await name.fill('');
    watched.allow.push(/status of 400 .*\/api\/v1\/settings/); // the refusal below is the point
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'team_name must not be empty' }).waitFor(); // the relay's refusal, at the field
    await name.fill('Mobile QA');
    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: solidPng(64, 64, [60, 90, 220]) });
    await page.getByRole('button', { name: 'Save settings' }).click();
    const home = page.getByRole('link', { name: 'Mobile QA: builds' });
    await home.waitFor();
    await until(() => home.locator('img').getAttribute('src').then((src) => src?.startsWith('/uploads/')));
    await screenshotBothThemes(page, 'settings');
  });

  it('the Relay page: public and agent URLs to copy, and the live log on the relay host only', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Relay' }).click();
    await page.getByRole('heading', { name: 'Relay', exact: true }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Public URL', exact: true }).inputValue()).toBe(RELAY_URL);
    expect(await page.getByRole('textbox', { name: 'Agent URL', exact: true }).inputValue()).toBe('wss://relay.example.com/api/v1/agent/connect');
    const host = (await relay.http().get('/api/v1/relay/host').set('Cookie', admin.cookie).expect(200)).body;
    if (host.lanHost) expect(await page.getByRole('textbox', { name: 'LAN address', exact: true }).inputValue()).toBe(`http://${host.lanHost}:${host.port}`);
    // No LAN address: the page says why (bound to loopback, as test relays are; a container; no interface).
    else await page.getByText(/^(None: the relay is (bound to|running in)|Unknown: the relay runs in a container)/).waitFor();
    const log = page.getByLabel('Relay log, newest last');
    // The page's own request for the addresses is in the log the page shows.
    await until(async () => /GET \/api\/v1\/relay\/host (200|304)/.test((await log.textContent()) ?? ''));
    await screenshotBothThemes(page, 'relay');

    // Seen through a proxy (not the relay host), the relay refuses /logs and the page says why.
    const remote = await watchedPage(await signedInContext(admin, { extraHTTPHeaders: { 'X-Forwarded-For': '203.0.113.9' } }));
    opened.push(remote);
    remote.allow.push(/status of 403 .*\/api\/v1\/logs/);
    await remote.page.goto(url('/relay'));
    await remote.page.getByText(/^The log is shown only on the relay host itself/).waitFor();
    expect(await remote.page.getByRole('textbox', { name: 'Public URL', exact: true }).inputValue()).toBe(RELAY_URL);
    expect(await remote.page.getByLabel('Relay log, newest last').count()).toBe(0);
    await remote.page.context().close();
  });

  it('works at 375 px: the Team, Tokens and Relay pages do not scroll sideways', async () => {
    const phone = await watchedPage(await newContext(browser, { viewport: { width: 375, height: 760 }, storageState: await context.storageState() }));
    opened.push(phone);
    for (const [path, heading] of [['/team', 'Team'], ['/tokens', 'Access tokens'], ['/relay', 'Relay']]) {
      await phone.page.goto(url(path));
      await phone.page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await phone.page.getByRole('heading', { level: 2 }).first().waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      if (path === '/team') await screenshotBothThemes(phone.page, 'team-375px', true);
    }
    await phone.page.close();
  });

  it('a member who is not an Admin sees no Admin pages: no menu entries, and a sentence instead of the page', async () => {
    const qa = await members.member('QA');
    const ctx = await signedInContext(qa);
    const other = await watchedPage(ctx);
    opened.push(other);
    await other.page.goto(url('/builds'));
    await other.page.getByRole('button', { name: /^Account:/ }).click();
    await other.page.getByRole('menuitem', { name: 'Access tokens' }).waitFor();
    expect(await other.page.getByRole('menuitem', { name: 'Team', exact: true }).count()).toBe(0);
    await other.page.keyboard.press('Escape');
    await other.page.goto(url('/team'));
    await other.page.getByText('Only Admins can see the team. Your role is QA.').waitFor();
    await other.page.goto(url('/tokens'));
    expect(await other.page.getByRole('checkbox', { name: /^agent:/ }).isDisabled()).toBe(true);
    await other.page.getByText('(only an Admin can issue it)').waitFor();
    await ctx.close();
  });

  async function roleOf(email: string): Promise<string> {
    const list = await relay.http().get('/api/v1/team/members').set('Cookie', admin.cookie).expect(200);
    return list.body.find((m: { email: string }) => m.email === email).role;
  }
});

/** Waits until the probe holds (the page updates after its own requests answer). */
async function until(probe: () => Promise<boolean | undefined> | boolean | undefined, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${probe.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

