/**
 * bench/first-load: the dashboard's first load on a slow link (issue 24, item 8), in Chromium.
 *   - Chromium (playwright-core, /usr/bin/chromium, the browser tests' launch flags) throttled by
 *     CDP `Network.emulateNetworkConditions`: BENCH_MBIT (1.6) Mbit/s down and up, BENCH_RTT_MS (150)
 *     of latency per request;
 *   - a fresh browser context each run (empty cache), signed in by cookie; the time from navigation
 *     to /builds until the inbox's first build row is visible (a relay seeded with four builds),
 *     and the bytes the page received (CDP encodedDataLength: what crossed the wire);
 *   - this checkout, and when BENCH_BASE names another checkout (its dist/ and web/dist built, e.g.
 *     a worktree of an older commit with a node_modules link) that one too, runs alternating;
 *     BENCH_RUNS (5) each, medians.
 * Run: npm run bench:first-load   (not part of npm test)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ensureWebBuilt, launchChromium } from '../test/support/browser';
import { uploadFixtures } from './support/list-bench';
import { buildRelay, json, median, ROOT, startRelay, type RunningRelay } from './support/relay';

const MBIT = Number(process.env.BENCH_MBIT ?? 1.6);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 150);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface SeededRelay {
  name: string;
  relay: RunningRelay;
  url: string;
  cookie: string;
}

/** `checkout`'s relay (its dist/ and web/dist), on an empty data folder, with a first Admin and four builds. */
async function startSeeded(name: string, checkout: string, dataDir: string): Promise<SeededRelay> {
  const relay = await startRelay(dataDir, { SVC_WEB_DIR: join(checkout, 'web', 'dist') }, [], checkout);
  const { base } = relay;
  const credentials = { email: 'bench@example.com', password: 'bench-password-1' };
  await json(`${base}/auth/init`, 'POST', credentials);
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const { token } = (await json(`${base}/tokens`, 'POST', { name: 'bench', scope: 'builds:write' }, cookie)) as { token: string };
  await uploadFixtures(base, token);
  return { name, relay, url: `http://127.0.0.1:${relay.port}`, cookie };
}

/** One cold load of /builds through the throttled link: ms to the first row, bytes received. */
async function loadOnce(browser: Browser, relay: SeededRelay): Promise<{ ms: number; bytes: number; scriptBytes: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const [name, value] = relay.cookie.split('=');
    await context.addCookies([{ name, value, url: relay.url, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: RTT_MS,
      downloadThroughput: (MBIT * 1e6) / 8,
      uploadThroughput: (MBIT * 1e6) / 8,
    });
    const scripts = new Set<string>();
    let bytes = 0;
    let scriptBytes = 0;
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Script') scripts.add(e.requestId);
    });
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength;
      if (scripts.has(e.requestId)) scriptBytes += e.encodedDataLength;
    });
    const started = performance.now();
    await page.goto(`${relay.url}/builds`, { waitUntil: 'commit' });
    await page.getByRole('row').nth(1).waitFor({ state: 'visible', timeout: 60_000 });
    return { ms: performance.now() - started, bytes, scriptBytes };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  buildRelay();
  ensureWebBuilt();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-first-load-'));
  const relays: SeededRelay[] = [];
  let browser: Browser | undefined;
  try {
    if (process.env.BENCH_BASE) relays.push(await startSeeded('base', process.env.BENCH_BASE, join(work, 'base')));
    relays.push(await startSeeded('this', ROOT, join(work, 'this')));
    browser = await launchChromium();
    const results = new Map(relays.map((r) => [r.name, [] as { ms: number; bytes: number; scriptBytes: number }[]]));
    for (const relay of relays) await loadOnce(browser, relay); // warm the relays' own caches (not the browser's)
    for (let run = 0; run < RUNS; run++) {
      const order = run % 2 ? [...relays].reverse() : relays;
      for (const relay of order) results.get(relay.name)!.push(await loadOnce(browser, relay));
    }
    console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`link: ${MBIT} Mbit/s, ${RTT_MS} ms latency per request (Chromium network emulation), cold cache, ${RUNS} runs each`);
    for (const [name, runs] of results) {
      const ms = median(runs.map((r) => r.ms));
      const kb = (n: number) => (n / 1024).toFixed(0);
      console.log(
        `${name}: navigation to the first inbox row ${(ms / 1000).toFixed(2)} s median ` +
          `(${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}); received ${kb(median(runs.map((r) => r.bytes)))} KB, ` +
          `of which scripts ${kb(median(runs.map((r) => r.scriptBytes)))} KB`,
      );
    }
  } finally {
    await browser?.close();
    for (const { relay } of relays) await relay.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
