import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../sessions/ui-element.mapper';
import { parseAdbDevices, parseUiAutomatorDump, parseWmSize } from './adb-output';
import { BackendError, Capture, DeviceBackend, unsupported } from './device-backend';
import { runTool } from './run-tool';

const PREFIX = 'android-';

/** Android devices and emulators through `adb`. Session ids are `android-<serial>`. */
export class AdbBackend implements DeviceBackend {
  readonly name = 'adb';
  private readonly osVersions = new Map<string, string>();

  constructor(private readonly adb = 'adb') {}

  owns(sessionId: string): boolean {
    return sessionId.startsWith(PREFIX);
  }

  async listDevices(): Promise<DeviceInfo[]> {
    const devices = parseAdbDevices((await runTool(this.adb, ['devices', '-l'])).toString('utf8'));
    return Promise.all(
      devices.map(async (d) => ({
        sessionId: PREFIX + d.serial,
        name: (d.model ?? d.product ?? d.serial).replace(/_/g, ' '),
        platform: 'android',
        state: d.state === 'device' ? ('booted' as const) : ('shutdown' as const),
        osVersion: d.state === 'device' ? await this.osVersion(d.serial) : '',
      })),
    );
  }

  async screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture> {
    if (format !== 'png') throw unsupported('JPEG capture through adb');
    const data = await runTool(this.adb, ['-s', this.serial(sessionId), 'exec-out', 'screencap', '-p']);
    if (data.length < 8 || data.readUInt32BE(0) !== 0x89504e47) throw new BackendError('failed', 'screencap returned no PNG');
    return { mime: 'image/png', data };
  }

  async uiTree(sessionId: string): Promise<UiElement[]> {
    const serial = this.serial(sessionId);
    const xml = (await runTool(this.adb, ['-s', serial, 'exec-out', 'uiautomator', 'dump', '/dev/tty'], 30_000)).toString(
      'utf8',
    );
    if (!xml.includes('<hierarchy')) throw new BackendError('failed', 'uiautomator dump returned no hierarchy');
    return parseUiAutomatorDump(xml, await this.screenSize(serial));
  }

  async perform(sessionId: string, method: string, params: Record<string, unknown>): Promise<unknown> {
    const serial = this.serial(sessionId);
    if (method === 'tap') {
      const size = await this.screenSize(serial);
      const x = Number(params.x);
      const y = Number(params.y);
      if (!size || !Number.isFinite(x) || !Number.isFinite(y)) throw new BackendError('failed', 'tap needs x and y');
      await runTool(this.adb, ['-s', serial, 'shell', 'input', 'tap', px(x, size.width), px(y, size.height)]);
      return {};
    }
    if (method === 'type_text' && typeof params.text === 'string') {
      await runTool(this.adb, ['-s', serial, 'shell', 'input', 'text', params.text.replace(/ /g, '%s')]);
      return {};
    }
    throw unsupported(method);
  }

  private serial(sessionId: string): string {
    if (!this.owns(sessionId)) throw new BackendError('not_found', `No device ${sessionId}`);
    return sessionId.slice(PREFIX.length);
  }

  private async osVersion(serial: string): Promise<string> {
    if (!this.osVersions.has(serial)) {
      const out = await runTool(this.adb, ['-s', serial, 'shell', 'getprop', 'ro.build.version.release']).catch(() => null);
      if (!out) return '';
      this.osVersions.set(serial, out.toString('utf8').trim());
    }
    return this.osVersions.get(serial)!;
  }

  private async screenSize(serial: string): Promise<{ width: number; height: number } | null> {
    const out = await runTool(this.adb, ['-s', serial, 'shell', 'wm', 'size']).catch(() => null);
    return out ? parseWmSize(out.toString('utf8')) : null;
  }
}

function px(fraction: number, total: number): string {
  return String(Math.round(Math.min(Math.max(fraction, 0), 1) * (total - 1)));
}
