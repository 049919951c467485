// A real WebdriverIO client (ESM, so it runs in its own process; jest here is CommonJS), written as
// a suite for a real device would be: only the hub URL, the credentials and svc:build are the relay's.
// Usage: node wdio-client.mjs <scenario> ; settings in HUB_URL, HUB_TOKEN, HUB_AUTH (basic|bearer),
// HUB_CAPS (JSON merged into the capabilities), HUB_SETTLE_MS (a pause after New Session). Prints one JSON line with what it saw.
import { remote } from 'webdriverio';

const url = new URL(process.env.HUB_URL);
const scenario = process.argv[2] ?? 'login';
const caps = {
  platformName: 'Android',
  'appium:automationName': 'UiAutomator2',
  'appium:deviceName': 'Android Emulator',
  ...JSON.parse(process.env.HUB_CAPS ?? '{}'),
};
const auth =
  process.env.HUB_AUTH === 'bearer'
    ? { headers: { Authorization: `Bearer ${process.env.HUB_TOKEN}` } }
    : { user: 'ci', key: process.env.HUB_TOKEN };

const out = {};
let driver;
try {
  driver = await remote({
    protocol: url.protocol.replace(':', ''),
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    ...auth,
    capabilities: caps,
    logLevel: 'silent',
    connectionRetryCount: 0,
  });
  out.sessionId = driver.sessionId;
  // HUB_SETTLE_MS: wait before acting (the session's recording starts with the device's first key frame).
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.HUB_SETTLE_MS ?? 0)));
  if (scenario === 'login' || scenario === 'status') {
    const username = await driver.$('~username');
    await username.setValue('ada');
    out.typed = await username.getText();
    const button = await driver.$('~login_button');
    await button.click();
    out.clicks = await button.getAttribute('clicks');
    out.buttonTag = await button.getTagName();
    out.title = await driver.$('id=title').isExisting();
    out.missing = await driver.$('~no_such_thing').isExisting();
  }
  if (scenario === 'status') {
    await driver.executeScript('svc:status', [{ status: 'failed', reason: 'login did not show the inbox' }]);
  }
  if (scenario === 'evidence') {
    await (await driver.$('~username')).setValue('ada');
    await (await driver.$('~login_button')).click();
    try {
      out.found = await driver.findElement('accessibility id', 'no_such_thing');
    } catch (err) {
      out.findError = err.name;
    }
  }
  if (scenario === 'hold-then-act') {
    // Holds until told, then acts: the session may have been ended meanwhile (an Admin).
    process.stdout.write(JSON.stringify({ holding: driver.sessionId }) + '\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.destroy();
    await driver.getPageSource();
  }
  if (scenario === 'mark-then-hold') {
    // Marks its session, then holds it until killed (the relay is killed under it).
    await driver.executeScript('svc:status', [{ status: 'failed', reason: 'the inbox never showed' }]);
    process.stdout.write(JSON.stringify({ holding: driver.sessionId }) + '\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.destroy();
  }
  if (scenario === 'hold') {
    process.stdout.write(JSON.stringify({ holding: driver.sessionId }) + '\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.destroy();
  }
  await driver.deleteSession();
  out.deleted = true;
} catch (err) {
  out.error = { name: err.name, message: err.message };
}
process.stdout.write(JSON.stringify(out) + '\n');
