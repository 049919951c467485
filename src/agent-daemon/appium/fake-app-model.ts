import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import { AppUnderTest, appiumUdid, CapabilityMapping, WebDriverAnswer, WebDriverRequest } from './webdriver-request';

/**
 * `svc agent --fake --appium`: a session written for a real device (Android + UiAutomator2, iOS +
 * XCUITest) runs on Appium's fake driver instead, against an XML app model of the build the relay
 * installed. The model has what the fake devices' UI tree shows (fakeUiTree: `title`, `login_button`)
 * plus the build's name and version, with element names of the platform's own classes, so `~id`,
 * `id=`, class name and XPath selectors of a real suite find their elements.
 */
export class FakeAppModels implements CapabilityMapping {
  private dir: Promise<string> | null = null;
  private count = 0;
  /** Each fake device's log (its "logcat" or "syslog"): what was started on it and every WebDriver request it served. */
  private readonly logs = new Map<string, LogEntry[]>();

  /**
   * The fake driver knows no device log (only its `actions` log): Appium's log endpoint for the
   * platform's type (`logcat`, `syslog`) is answered here from the fake device's own log.
   */
  intercept(device: DeviceInfo, request: WebDriverRequest): WebDriverAnswer | null {
    const type = (request.body as { type?: unknown } | undefined)?.type;
    if (request.method === 'POST' && /^\/session\/[^/]+\/se\/log$/.test(request.path) && (type === 'logcat' || type === 'syslog')) {
      return { status: 200, body: { value: [...(this.logs.get(device.sessionId) ?? [])] } };
    }
    this.log(device, 'DEBUG', `FakeDriver: ${request.method} ${request.path}`);
    return null;
  }

  async map(capabilities: Record<string, unknown>, device: DeviceInfo, app: AppUnderTest | undefined) {
    const dir = await (this.dir ??= mkdtemp(join(tmpdir(), 'svc-agent-fake-apps-')));
    const path = join(dir, `app-${++this.count}.xml`);
    await writeFile(path, fakeAppXml(device, app));
    this.log(device, 'INFO', `ActivityManager: Start proc ${app ? `${app.bundleId} (${app.name} ${app.version})` : 'the fake app'} on ${device.name}`);
    const { platformName: _platform, 'appium:automationName': _engine, 'appium:app': _app, ...rest } = capabilities;
    return {
      ...rest,
      platformName: 'Fake',
      'appium:automationName': 'Fake',
      'appium:app': path,
      'appium:udid': appiumUdid(device.sessionId),
    };
  }

  private log(device: DeviceInfo, level: string, message: string): void {
    const entries = this.logs.get(device.sessionId) ?? [];
    entries.push({ timestamp: Date.now(), level, message });
    if (entries.length > MAX_LOG_ENTRIES) entries.shift();
    this.logs.set(device.sessionId, entries);
  }

  async close(): Promise<void> {
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }
}

interface LogEntry {
  timestamp: number;
  level: string;
  message: string;
}
const MAX_LOG_ENTRIES = 1000;

/** The fake driver's app model (an XML document it queries with XPath) for a build on a device. */
export function fakeAppXml(device: DeviceInfo, app: AppUnderTest | undefined): string {
  const ios = (app?.platform ?? device.platform) === 'ios';
  const tag = (kind: 'window' | 'text' | 'button') =>
    ios
      ? { window: 'XCUIElementTypeWindow', text: 'XCUIElementTypeStaticText', button: 'XCUIElementTypeButton' }[kind]
      : { window: 'android.widget.FrameLayout', text: 'android.widget.TextView', button: 'android.widget.Button' }[kind];
  // The build's name and bundle id go into the model as element ids a suite can look for.
  const name = escapeXml(app ? `${app.name} ${app.version}` : device.name);
  return [
    '<app>',
    `<title>${name}</title>`,
    `<${tag('window')} id="root">`,
    `<${tag('text')} id="title">Welcome</${tag('text')}>`,
    `<${tag('text')} id="build">${name}</${tag('text')}>`,
    // The fake driver types only into its own MockInputField (and reads text back only from what was typed).
    '<MockInputField id="username"></MockInputField>',
    `<${tag('button')} id="login_button">Sign in</${tag('button')}>`,
    `</${tag('window')}>`,
    '</app>',
  ].join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
