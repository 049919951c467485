import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';

/**
 * Browser end-to-end tests: Debian's Chromium driven by playwright-core (no browser download).
 * Without a Chromium binary the suites are reported as skipped with the reason, never passed
 * (`.ci/run` installs it with apt-get when missing).
 */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

export function browserSkipReason(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set SVC_CHROMIUM)`;
}

const root = join(__dirname, '..', '..');
/** The built dashboard, for test relays that serve it (SVC_WEB_DIR; test relays serve none by default). */
export const WEB_DIST = join(root, 'web', 'dist');

/**
 * Builds web/dist when it is missing or older than the dashboard's sources (the relay serves it):
 * the same rule and command as `npm start` (scripts/build-if-needed.js).
 */
export function ensureWebBuilt(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildWebIfNeeded } = require(join(root, 'scripts', 'build-if-needed.js')) as {
    buildWebIfNeeded: (options: { log: NodeJS.WritableStream }) => void;
  };
  buildWebIfNeeded({ log: process.stderr });
  if (!existsSync(join(root, 'web', 'dist', 'index.html'))) throw new Error('web/dist was not built (is Vite installed? npm ci)');
}

/** `extraArgs`: e.g. `--host-resolver-rules=MAP relay.test 127.0.0.1`, a second name for a test relay. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Root in CI containers cannot use Chromium's sandbox; the pages are our own. No update checks,
    // first-run screens or background requests: the only traffic is the test's.
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/**
 * A page whose console errors, uncaught exceptions and CSP violations are recorded, so a test can
 * assert there were none. `allow` lists console messages that are expected (e.g. the 401 of the
 * signed-out `/auth/me` probe, which Chromium logs as "Failed to load resource").
 */
export interface WatchedPage {
  page: Page;
  problems: string[];
  allow: RegExp[];
}

export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const watched: WatchedPage = { page, problems: [], allow: [] };
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A failed request is logged as "Failed to load resource: … 404"; its address is in the location.
    const where = message.location().url;
    const text = where && !message.text().includes(where) ? `${message.text()} (${where})` : message.text();
    if (watched.allow.some((pattern) => pattern.test(text))) return;
    watched.problems.push(`console: ${text}`);
  });
  page.on('pageerror', (error) => watched.problems.push(`uncaught: ${error.message}`));
  return watched;
}

/** A watched page in `context` that carries a member's session cookie (`svc_token=…`) for `relayUrl`. */
export async function signedInPage(context: BrowserContext, relayUrl: string, cookie: string): Promise<WatchedPage> {
  const [name, value] = cookie.split('=');
  await context.addCookies([{ name, value, url: relayUrl, httpOnly: true, sameSite: 'Lax' }]);
  return watchedPage(context);
}

export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  context.setDefaultTimeout(15_000);
  return context;
}

/**
 * Screenshots for the README are written only when SVC_SCREENSHOTS=1 (`npm run screenshots`), so a
 * plain `npm test` leaves the work tree clean.
 */
export const SCREENSHOT_DIR = join(root, 'docs', 'screenshots');

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // A full-page capture keeps the scroll position: scrolled down (a focused comment box), the sticky
  // header would be drawn mid-page. From the top it sits where a reader expects it.
  if (fullPage) await page.evaluate(() => new Promise((resolve) => (window.scrollTo(0, 0), requestAnimationFrame(resolve))));
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage, animations: 'disabled', caret: 'hide' });
}

/** `<name>-light.png` and `<name>-dark.png` (the README shows both themes); the page is left light. */
export async function screenshotBothThemes(page: Page, name: string, fullPage = false): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await screenshot(page, `${name}-${theme}`, fullPage);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Signs in through the dashboard's form and waits for the inbox. */
export async function signInInBrowser(page: Page, signInUrl: string, email: string, password: string): Promise<void> {
  await page.goto(signInUrl);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Builds' }).waitFor();
}

/** An element with role alert holding this text appears. */
export async function expectAlert(page: Page, text: string): Promise<void> {
  await page.getByRole('alert').filter({ hasText: text }).waitFor();
}

/** Polls until `probe` gives a truthy value (no timing is asserted: a slow machine only waits longer). */
export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A File dropped on (or pasted into) an element, built inside the page from bytes read here. */
export async function dispatchFileEvent(
  page: Page,
  selector: string,
  kind: 'drop' | 'paste',
  file: { name: string; type: string; bytes: Buffer },
): Promise<void> {
  await page.evaluate(
    ({ selector, kind, name, type, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name, { type }));
      const target = document.querySelector(selector);
      if (!target) throw new Error(`nothing matches ${selector}`);
      if (kind === 'paste') {
        target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
        return;
      }
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { selector, kind, name: file.name, type: file.type, base64: file.bytes.toString('base64') },
  );
}

/** How many pixels of a canvas were painted (not transparent): that a chart drew something. */
export function paintedPixels(canvas: Locator): Promise<number> {
  return canvas.evaluate((element: HTMLCanvasElement) => {
    const data = element.getContext('2d')!.getImageData(0, 0, element.width, element.height).data;
    let colored = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) colored++;
    return colored;
  });
}
