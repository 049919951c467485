import { createHash } from 'node:crypto';
import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../sessions/ui-element.mapper';
import type { DeviceAction } from './device-actions';
import { BackendError, Capture, DeviceBackend, DeviceEventSink, DownloadedBuild } from './device-backend';
import { solidPng } from './png-image';

/** An 8×8 baseline JPEG (made with ffmpeg from a solid colour); the same bytes every time. */
const FAKE_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgQEBMQExYWFhYWFhoYGhsbGxoaGhobGxsdHR0iIiIdHR0bGx0dICAiIiUmJSMjIiMmJigoKDAwLi44ODpFRVP/xABLAAEBAAAAAAAAAAAAAAAAAAAABQEBAAAAAAAAAAAAAAAAAAAABhABAAAAAAAAAAAAAAAAAAAAABEBAAAAAAAAAAAAAAAAAAAAAP/AABEIAAgACAMBIgACEQADEQD/2gAMAwEAAhEDEQA/AIIB2Ov/2Q==',
  'base64',
);

/**
 * Deterministic devices for tests and demos (`svc agent --fake`): the same list, images and trees
 * on every run, so a test can compare bytes end to end. Session ids carry the agent's name, so two
 * fake agents never claim the same session.
 */
export class FakeBackend implements DeviceBackend {
  readonly name = 'fake';
  private readonly devices: DeviceInfo[];
  private sink: DeviceEventSink = () => undefined;

  constructor(agentName: string) {
    this.devices = [
      { sessionId: `fake-ios-${agentName}`, name: 'iPhone 16', platform: 'ios', state: 'booted', osVersion: '18.2' },
      { sessionId: `fake-android-${agentName}`, name: 'Pixel 8', platform: 'android', state: 'booted', osVersion: '15' },
      { sessionId: `fake-off-${agentName}`, name: 'iPad Air', platform: 'ios', state: 'shutdown', osVersion: '17.5' },
    ];
  }

  owns(sessionId: string): boolean {
    return this.devices.some((d) => d.sessionId === sessionId);
  }

  async listDevices(): Promise<DeviceInfo[]> {
    return this.devices.map((d) => ({ ...d }));
  }

  async screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture> {
    this.booted(sessionId);
    return format === 'jpeg' ? { mime: 'image/jpeg', data: FAKE_JPEG } : { mime: 'image/png', data: fakePng(sessionId) };
  }

  async uiTree(sessionId: string): Promise<UiElement[]> {
    this.booted(sessionId);
    return fakeUiTree();
  }

  /** Every input action succeeds on a booted device and is echoed as an event named after it (`tapped` for tap). */
  async perform(sessionId: string, action: DeviceAction): Promise<unknown> {
    this.booted(sessionId);
    const { method, ...data } = action;
    this.sink(sessionId, method === 'tap' ? 'tapped' : method, data);
    return {};
  }

  /** Downloads the build for real and answers with its size and SHA-256, so a test can compare bytes end to end. */
  async install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>> {
    this.booted(sessionId);
    const build = await download();
    const result = { installed: true, fileName: build.fileName, bytes: build.bytes, sha256: build.sha256 };
    this.sink(sessionId, 'installed', result);
    return result;
  }

  onEvent(sink: DeviceEventSink): void {
    this.sink = sink;
  }

  private booted(sessionId: string): void {
    const device = this.devices.find((d) => d.sessionId === sessionId);
    if (!device) throw new BackendError('not_found', `No device ${sessionId}`);
    if (device.state !== 'booted') throw new BackendError('not_booted', 'Device is not booted');
  }
}

/** The fake PNG of a session: 32×64, its colour derived from the session id. */
export function fakePng(sessionId: string): Buffer {
  const [r, g, b] = createHash('sha256').update(sessionId).digest();
  return solidPng(32, 64, [r, g, b]);
}

export function fakeUiTree(): UiElement[] {
  return [
    { role: 'window', label: '', identifier: 'root', frame: { x: 0, y: 0, width: 1, height: 1 }, enabled: true },
    {
      role: 'button',
      label: 'Sign in',
      identifier: 'login_button',
      frame: { x: 0.1, y: 0.8, width: 0.8, height: 0.075 },
      enabled: true,
    },
    {
      role: 'text',
      label: 'Welcome',
      identifier: 'title',
      frame: { x: 0.1, y: 0.1, width: 0.8, height: 0.05 },
      enabled: true,
    },
  ];
}
