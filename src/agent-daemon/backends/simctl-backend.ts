import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../sessions/ui-element.mapper';
import { BackendError, Capture, DeviceBackend, unsupported } from './device-backend';
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

  async perform(_sessionId: string, method: string): Promise<unknown> {
    throw unsupported(method);
  }

  private udid(sessionId: string): string {
    if (!this.owns(sessionId)) throw new BackendError('not_found', `No device ${sessionId}`);
    return sessionId.slice(PREFIX.length);
  }
}
