// bench/device-tests' client: SESSIONS WebdriverIO sessions at once against HUB_URL (the relay's hub,
// or Appium itself), each LOOPS × (findElement + click), then deleted. Prints one JSON line:
// { wallMs, sessions: [{ createMs, loopMs, deleteMs }] }. ESM in its own process (webdriverio is ESM).
// HUB_TOKEN (omit for Appium directly), HUB_CAPS_LIST: a JSON array of capabilities, one per session.
import { remote } from 'webdriverio';

const url = new URL(process.env.HUB_URL);
const loops = Number(process.env.LOOPS ?? 20);
const capsList = JSON.parse(process.env.HUB_CAPS_LIST);
const auth = process.env.HUB_TOKEN ? { user: 'bench', key: process.env.HUB_TOKEN } : {};

async function one(capabilities) {
  const t0 = performance.now();
  const driver = await remote({
    protocol: 'http',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    ...auth,
    capabilities,
    logLevel: 'silent',
    connectionRetryCount: 0,
  });
  const t1 = performance.now();
  for (let i = 0; i < loops; i++) {
    const button = await driver.findElement('accessibility id', 'login_button');
    await driver.elementClick(button['element-6066-11e4-a52e-4f735466cecf']);
  }
  const t2 = performance.now();
  await driver.deleteSession();
  return { createMs: t1 - t0, loopMs: t2 - t1, deleteMs: performance.now() - t2 };
}

const started = performance.now();
const sessions = await Promise.all(capsList.map(one));
process.stdout.write(JSON.stringify({ wallMs: performance.now() - started, sessions }) + '\n');
