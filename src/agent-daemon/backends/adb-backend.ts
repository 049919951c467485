import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../agents/protocol/ui-tree';
import { parseAdbDevices, parseUiAutomatorDump, parseWmSize } from './adb-output';
import { DeviceAction, DeviceButton } from './device-actions';
import { BackendError, Capture, DeviceBackend, DownloadedBuild, StreamOptions, unsupported } from './device-backend';
import { runTool } from './run-tool';
import { AccessUnitSink, EncoderProcess, VideoStream } from './encoder-process';

/** screenrecord stops by itself after 180 s: restarted a little before, so the picture never freezes. */
export const SCREENRECORD_RESTART_MS = 170_000;

const PREFIX = 'android-';
/** What adb prints as a serial (USB, emulator-5554, host:port, mDNS names); never an option, never shell syntax. */
const ADB_SERIAL = /^[A-Za-z0-9][A-Za-z0-9._:@[\]%-]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

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
    const data = await this.onDevice(this.serial(sessionId), 'exec-out', ['screencap', '-p']);
    if (data.length < 8 || data.readUInt32BE(0) !== 0x89504e47) throw new BackendError('failed', 'screencap returned no PNG');
    return { mime: 'image/png', data };
  }

  async uiTree(sessionId: string): Promise<UiElement[]> {
    const serial = this.serial(sessionId);
    const xml = (await this.onDevice(serial, 'exec-out', ['uiautomator', 'dump', '/dev/tty'], 30_000)).toString(
      'utf8',
    );
    if (!xml.includes('<hierarchy')) throw new BackendError('failed', 'uiautomator dump returned no hierarchy');
    return parseUiAutomatorDump(xml, await this.screenSize(serial));
  }

  async perform(sessionId: string, action: DeviceAction): Promise<unknown> {
    const serial = this.serial(sessionId);
    const input = (...args: string[]) => this.onDevice(serial, 'shell', ['input', ...args]);
    switch (action.method) {
      case 'tap': {
        const size = await this.requireScreenSize(serial);
        await input('tap', px(action.x, size.width), px(action.y, size.height));
        break;
      }
      case 'swipe': {
        const size = await this.requireScreenSize(serial);
        await input(
          'swipe',
          px(action.fromX, size.width),
          px(action.fromY, size.height),
          px(action.toX, size.width),
          px(action.toY, size.height),
          String(action.durationMs),
        );
        break;
      }
      case 'type_text':
        if (CONTROL_CHARACTER.test(action.text)) throw new BackendError('unsupported', 'type_text cannot type control characters');
        // `input text` reads %s as a space; a quoted space would end the word on older Androids
        await input('text', action.text.replace(/ /g, '%s'));
        break;
      case 'press_button':
        await input('keyevent', ANDROID_KEYCODES[action.button]);
        break;
      case 'launch_app':
        await this.onDevice(serial, 'shell', ['monkey', '-p', action.bundleId, '-c', 'android.intent.category.LAUNCHER', '1']);
        break;
    }
    return {};
  }

  /** `adb install -r`: only APKs (the relay accepts no other Android format). */
  async install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>> {
    const serial = this.serial(sessionId);
    const build = await download();
    if (!build.fileName.toLowerCase().endsWith('.apk')) throw unsupported(`Installing ${build.fileName} on Android`);
    await runTool(this.adb, ['-s', serial, 'install', '-r', build.path], 300_000);
    return { installed: true, fileName: build.fileName, bytes: build.bytes, sha256: build.sha256 };
  }

  /**
   * Live video through `screenrecord --output-format=h264 -` (Android 5+; the device's own encoder,
   * so its key frames come at its own interval and cannot be asked for), restarted before its
   * 3-minute limit; each restart begins with SPS, PPS and a key frame. Its default rate (4–20 Mbit/s
   * by Android version) would fill a recording's cap in minutes: the relay's `maxBitrate` is passed on.
   */
  async startStream(sessionId: string, sink: AccessUnitSink, options: StreamOptions = {}): Promise<VideoStream> {
    const serial = this.serial(sessionId);
    const rate = options.maxBitrate ? ['--bit-rate', String(options.maxBitrate)] : [];
    const record = ['screenrecord', '--output-format=h264', '--time-limit', '180', ...rate, '-'];
    return new EncoderProcess(
      {
        command: this.adb,
        args: ['-s', serial, 'exec-out', record.map(quoteForDeviceShell).join(' ')],
        restartEveryMs: SCREENRECORD_RESTART_MS,
        log: (line) => process.stderr.write(`${line}\n`),
      },
      sink,
    );
  }

  private serial(sessionId: string): string {
    const serial = sessionId.slice(PREFIX.length);
    if (!this.owns(sessionId) || !ADB_SERIAL.test(serial)) throw new BackendError('not_found', `No device ${sessionId}`);
    return serial;
  }

  /**
   * `adb shell` and `adb exec-out` join their arguments with spaces and the device runs the result
   * through `sh -c`, so every argument is quoted for that shell here: nothing a client sends is
   * ever shell syntax. The only way this backend runs anything on a device.
   */
  private onDevice(serial: string, service: 'shell' | 'exec-out', args: string[], timeoutMs?: number): Promise<Buffer> {
    return runTool(this.adb, ['-s', serial, service, args.map(quoteForDeviceShell).join(' ')], timeoutMs);
  }

  private async osVersion(serial: string): Promise<string> {
    if (!this.osVersions.has(serial)) {
      const out = await this.onDevice(serial, 'shell', ['getprop', 'ro.build.version.release']).catch(() => null);
      if (!out) return '';
      this.osVersions.set(serial, out.toString('utf8').trim());
    }
    return this.osVersions.get(serial)!;
  }

  private async requireScreenSize(serial: string): Promise<{ width: number; height: number }> {
    const size = await this.screenSize(serial);
    if (!size) throw new BackendError('failed', 'wm size gave no screen size');
    return size;
  }

  private async screenSize(serial: string): Promise<{ width: number; height: number } | null> {
    const out = await this.onDevice(serial, 'shell', ['wm', 'size']).catch(() => null);
    return out ? parseWmSize(out.toString('utf8')) : null;
  }
}

/** KeyEvent codes for `input keyevent`. */
const ANDROID_KEYCODES: Record<DeviceButton, string> = {
  home: '3',
  back: '4',
  enter: '66',
  volume_up: '24',
  volume_down: '25',
  lock: '26',
};

function px(fraction: number, total: number): string {
  return String(Math.round(Math.min(Math.max(fraction, 0), 1) * (total - 1)));
}

/** One argument for a POSIX shell (the device's `sh -c`): single-quoted, each `'` written as `'\''`. */
export function quoteForDeviceShell(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
