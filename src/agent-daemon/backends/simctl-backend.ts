import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../agents/protocol/ui-tree';
import type { DeviceAction } from './device-actions';
import { BackendError, Capture, DeviceBackend, DownloadedBuild, unsupported } from './device-backend';
import { runTool } from './run-tool';

const PREFIX = 'ios-';

interface SimctlDevice {
  udid: string;
  name: string;
  state: string;
  isAvailable?: boolean;
}

/** Parses `xcrun simctl list devices --json`: available simulators; the runtime key gives the OS version. */
export function parseSimctlDevices(json: string): DeviceInfo[] {
  const parsed = JSON.parse(json) as { devices?: Record<string, SimctlDevice[]> };
  const devices: DeviceInfo[] = [];
  for (const [runtime, list] of Object.entries(parsed.devices ?? {})) {
    const version = /(?:iOS|tvOS|watchOS|xrOS|visionOS)-(\d+(?:-\d+)*)$/.exec(runtime)?.[1]?.replace(/-/g, '.') ?? '';
    for (const d of list) {
      if (d.isAvailable === false) continue;
      devices.push({
        sessionId: PREFIX + d.udid,
        name: d.name,
        platform: 'ios',
        state: d.state === 'Booted' ? 'booted' : 'shutdown',
        osVersion: version,
      });
    }
  }
  return devices;
}

/** iOS simulators through `xcrun simctl`. No UI tree: simctl has none (`unsupported`). */
export class SimctlBackend implements DeviceBackend {
  readonly name = 'simctl';

  owns(sessionId: string): boolean {
    return sessionId.startsWith(PREFIX);
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return parseSimctlDevices((await runTool('xcrun', ['simctl', 'list', 'devices', '--json'])).toString('utf8'));
  }

  async screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture> {
    const udid = this.udid(sessionId);
    const dir = await mkdtemp(join(tmpdir(), 'svc-agent-'));
    try {
      const file = join(dir, `shot.${format}`);
      await runTool('xcrun', ['simctl', 'io', udid, 'screenshot', `--type=${format}`, file]);
      return { mime: format === 'png' ? 'image/png' : 'image/jpeg', data: await readFile(file) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async uiTree(): Promise<UiElement[]> {
    throw unsupported('The UI tree of an iOS simulator');
  }

  /** simctl has no touch or key input; it can open an app (`simctl launch`). */
  async perform(sessionId: string, action: DeviceAction): Promise<unknown> {
    const udid = this.udid(sessionId);
    if (action.method !== 'launch_app') throw unsupported(`${action.method} on an iOS simulator`);
    await runTool('xcrun', ['simctl', 'launch', udid, action.bundleId]);
    return {};
  }

  /** Unpacks the .app.zip (ditto) or .tar.gz (tar) and `simctl install`s the .app inside. */
  async install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>> {
    const udid = this.udid(sessionId);
    const build = await download();
    const name = build.fileName.toLowerCase();
    const dir = await mkdtemp(join(tmpdir(), 'svc-agent-app-'));
    try {
      if (name.endsWith('.zip')) await runTool('ditto', ['-x', '-k', build.path, dir], 300_000);
      else if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) await runTool('tar', ['-xzf', build.path, '-C', dir], 300_000);
      else throw unsupported(`Installing ${build.fileName} on an iOS simulator`);
      const app = (await readdir(dir)).find((entry) => entry.endsWith('.app'));
      if (!app) throw new BackendError('failed', `${build.fileName} holds no .app folder at its top level`);
      await runTool('xcrun', ['simctl', 'install', udid, join(dir, app)], 300_000);
      return { installed: true, fileName: build.fileName, bytes: build.bytes, sha256: build.sha256 };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** simctl takes its arguments without a shell; a UDID is still held to its form so it can never read as an option. */
  private udid(sessionId: string): string {
    const udid = sessionId.slice(PREFIX.length);
    if (!this.owns(sessionId) || !/^[0-9A-Fa-f][0-9A-Fa-f-]*$/.test(udid)) throw new BackendError('not_found', `No device ${sessionId}`);
    return udid;
  }
}
