import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { browserSkipReason, ensureWebBuilt, launchChromium, newContext, signedInPage, WEB_DIST, type WatchedPage, screenshotBothThemes } from '../support/browser';
import { fixture } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, type TestMember } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { forgeConfigPath, writeForgeConfig } from '../forges/support/forge-relay';
import { TestForge } from '../forges/support/forge-server';

const SHA = '8'.repeat(40);

/**
 * Issue 25 in headless Chromium: the build page shows where the build came from, its commit and
 * pull request linked on the forge that serves the repository (a local GitHub here, so the links
 * point at it), the CI run and the changelog; a build uploaded without provenance shows none.
 */
describeUnless(browserSkipReason(), 'build provenance on the build page (issue 25)', () => {
  let browser: Browser;
  let relay: TestRelay;
  let developer: TestMember;
  let members: MemberFactory;
  const forge = new TestForge('github', { token: 'ghp_web' });
  const opened: WatchedPage[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    await forge.start();
    const config = forgeConfigPath();
    writeForgeConfig(config, [{ type: 'github', url: forge.url, tokenEnv: 'GH_WEB_TOKEN', repositories: ['acme/app'] }]);
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST, SVC_CONFIG: config, GH_WEB_TOKEN: 'ghp_web' });
    members = new MemberFactory(relay);
    developer = await members.member('Developer');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await forge.close();
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) expect(w.problems).toEqual([]);
    for (const c of contexts.splice(0)) await c.close();
  });

  const upload = async (fields: Record<string, string>) => {
    const req = members.as(developer, 'post', '/api/v1/builds');
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return (await req.attach('file', readFileSync(fixture('string-label.apk')), 'string-label.apk').expect(201)).body.id as number;
  };
  const open = async (buildId: number) => {
    const page = await openAs(developer, `/builds/${buildId}`);
    await page.getByRole('heading', { name: 'Details' }).waitFor();
    return page;
  };
  const openAs = async (member: TestMember, path: string) => {
    const context = await newContext(browser);
    contexts.push(context);
    const watched = await signedInPage(context, relay.url, member.cookie);
    opened.push(watched);
    await watched.page.goto(`${relay.url}${path}`);
    return watched.page;
  };

  it('links the commit and the pull request on the forge, and shows the CI run and the changelog', async () => {
    const id = await upload({
      commit: SHA,
      branch: 'feature/web',
      repository: 'acme/app',
      pull_request: '31',
      ci_url: 'https://ci.example.test/runs/9',
      changelog: 'Try the login\nthen the logout',
    });
    const page = await open(id);
    const source = page.getByRole('region', { name: 'Source' });
    await source.waitFor();
    const web = forge.url; // the local GitHub's API is at its root, as api.github.com's is
    expect(await source.getByRole('link', { name: SHA.slice(0, 10) }).getAttribute('href')).toBe(`${web}/acme/app/commit/${SHA}`);
    expect(await source.getByRole('link', { name: '#31' }).getAttribute('href')).toBe(`${web}/acme/app/pull/31`);
    expect(await source.getByRole('link', { name: 'Open the CI run' }).getAttribute('href')).toBe('https://ci.example.test/runs/9');
    await source.getByText('feature/web').waitFor();
    expect(await source.getByText('Try the login').innerText()).toBe('Try the login\nthen the logout');
  });

  it('shows what changed since the app\'s last Done build, from the forge\'s compare API', async () => {
    const base = await upload({ commit: '9'.repeat(40), repository: 'acme/app' });
    await members.as(await members.admin(), 'patch', `/api/v1/builds/${base}`).send({ status_label: 'Done' }).expect(200);
    const head = await upload({ commit: 'a'.repeat(40), repository: 'acme/app' });
    forge.script('repos/compare-commits-with-basehead', {
      status: 200,
      body: { commits: [{ sha: 'e'.repeat(40), html_url: `${forge.url}/acme/app/commit/${'e'.repeat(40)}`, commit: { message: 'Fix the logout\n\nlong text', author: { name: 'Ann' } } }] },
    });
    const page = await open(head);
    const changes = page.getByRole('region', { name: `What changed since build #${base}` });
    await changes.getByText('Fix the logout · Ann').waitFor();
    await screenshotBothThemes(page, 'build-source', true);
    expect(await changes.getByRole('link', { name: 'eeeeeee' }).getAttribute('href')).toBe(`${forge.url}/acme/app/commit/${'e'.repeat(40)}`);
    expect(forge.of('repos/compare-commits-with-basehead').at(-1)!.path).toBe(`/repos/acme/app/compare/${'9'.repeat(40)}...${'a'.repeat(40)}`);
  });

  it('shows no source for a build uploaded without provenance', async () => {
    const page = await open(await upload({}));
    await page.getByRole('heading', { name: 'Details' }).waitFor();
    expect(await page.getByRole('region', { name: 'Source' }).count()).toBe(0);
  });

  it('an Admin sees the forges on the Webhooks page, sends a test status and reads the status deliveries', async () => {
    const page = await openAs(await members.admin(), '/webhooks');
    const item = page.getByRole('listitem', { name: 'svc.config.json forge 0' });
    await item.getByText('In use').waitFor();
    await item.getByLabel('Commit SHA').fill(SHA);
    await item.getByRole('button', { name: 'Send test status' }).click();
    await item.getByRole('status').filter({ hasText: 'Test status svc/review/test: posted' }).waitFor();
    expect(forge.requests.at(-1)).toEqual(expect.objectContaining({ path: `/repos/acme/app/statuses/${SHA}`, problems: [] }));
    await page.getByRole('button', { name: 'Status deliveries' }).click();
    const log = page.getByRole('table', { name: 'Status deliveries' });
    await log.getByText('svc/review', { exact: true }).first().waitFor();
    await screenshotBothThemes(page, 'forges', true);
    expect(await log.getByRole('row').count()).toBeGreaterThan(1);
  });
});
