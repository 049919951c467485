import type { Browser, BrowserContext } from 'playwright-core';
import {
  browserSkipReason,
  ensureWebBuilt,
  launchChromium,
  newContext,
  signedInPage,
  WEB_DIST,
  type WatchedPage,
} from '../support/browser';
import { uploadTestBuild } from '../support/builds';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory } from '../support/factory';
import { startTestRelay, type TestRelay } from '../support/test-relay';

interface ScriptResponse {
  chunk: string;
  encoding: string | undefined;
  /** Bytes on the wire, when sent as they are (the build compresses only files over 1 KB). */
  plainLength: number | null;
  cache: string | undefined;
}

/**
 * The built dashboard in Chromium (issue 24, item 8): shell and pages in chunks of their own, each
 * loaded under the CSP (`script-src 'self'`) when its route is first shown, precompressed and
 * cached for a year.
 */
describeUnless(browserSkipReason(), 'dashboard first load: chunks by route, compressed', () => {
  let relay: TestRelay;
  let browser: Browser;
  let context: BrowserContext;
  let watched: WatchedPage;
  const scripts: ScriptResponse[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startTestRelay({ SVC_WEB_DIR: WEB_DIST });
    const members = new MemberFactory(relay);
    const admin = await members.admin();
    await uploadTestBuild(members, admin);
    browser = await launchChromium();
    context = await newContext(browser);
    watched = await signedInPage(context, relay.url, admin.cookie);
    watched.page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (!path.endsWith('.js')) return;
      const headers = res.headers();
      scripts.push({
        chunk: path.replace(/^\/assets\//, '').replace(/-[\w-]{8}\.js$/, ''),
        encoding: headers['content-encoding'],
        plainLength: headers['content-encoding'] ? null : Number(headers['content-length']),
        cache: headers['cache-control'],
      });
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
  });

  afterEach(() => expect(watched.problems.splice(0)).toEqual([]));

  it('opens the inbox with the shell and the inbox chunk only, compressed and cached for a year', async () => {
    await watched.page.goto(`${relay.url}/builds`);
    await watched.page.getByRole('row').nth(1).waitFor();
    const loaded = scripts.map((s) => s.chunk);
    expect(loaded).toEqual(expect.arrayContaining(['index', 'InboxPage']));
    expect(loaded).not.toContain('BuildPage');
    expect(loaded).not.toContain('AppsPage');
    expect(scripts.find((s) => s.chunk === 'index')!.encoding).toMatch(/^(br|gzip)$/);
    for (const script of scripts) {
      expect(script.cache).toBe('public, max-age=31536000, immutable');
      if (!script.encoding) expect(script.plainLength).toBeLessThanOrEqual(1024);
    }
  });

  it('loads another page\'s chunk when its route is first shown', async () => {
    const before = scripts.length;
    await watched.page.getByRole('link', { name: 'Apps' }).click();
    await watched.page.getByRole('heading', { name: 'Apps' }).waitFor();
    expect(scripts.slice(before).map((s) => s.chunk)).toContain('AppsPage');
  });
});
