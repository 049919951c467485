import type { Browser } from 'playwright-core';
import { browserSkipReason, launchChromium, watchedPage } from '../support/browser';
import { itUnless } from '../support/describe-unless';
import { useTestRelay } from '../support/use-relay';

/**
 * Issue 22 item 7: /api/docs is on the dashboard's origin and its "Try it out" sends the session
 * cookie, so it must not be framed or sniffed: the dashboard's security headers, on the page, its
 * assets and the document.
 */
describe('API docs security headers', () => {
  const ctx = useTestRelay();

  it.each(['/api/docs', '/api/docs/', '/api/docs/swagger-ui-init.js', '/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/v1/openapi.json', '/api/docs-yaml'])(
    'GET %s is never framed nor sniffed',
    async (path) => {
      const res = await ctx.relay.http().get(path);
      expect(res.status).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    },
  );

  describe('in a browser', () => {
    const skip = browserSkipReason();
    let browser: Browser | undefined;
    afterAll(() => browser?.close());

    itUnless(skip, 'the Swagger page still renders every operation under its CSP, with no violation', async () => {
      browser = await launchChromium();
      const context = await browser.newContext();
      const watched = await watchedPage(context);
      await watched.page.goto(`${ctx.relay.url}/api/docs`);
      await watched.page.getByRole('heading', { name: /svc relay/ }).waitFor();
      await watched.page.locator('.opblock').first().waitFor();
      expect(await watched.page.locator('.opblock').count()).toBeGreaterThan(20);
      expect(watched.problems).toEqual([]);
    }, 60_000);
  });
});
