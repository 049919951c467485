import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../agents/protocol/ui-tree';
import { AdbBackend } from './adb-backend';
import type { DeviceAction } from './device-actions';
import { BackendError, Capture, DeviceBackend, DeviceEventSink, DownloadedBuild, StreamOptions, unsupported } from './device-backend';
import type { AccessUnitSink, VideoStream } from './encoder-process';
import { FakeBackend } from './fake-backend';
import { onPath } from './run-tool';
import { SimctlBackend } from './simctl-backend';

/** `--fake`, else every real backend whose tool is installed (adb; xcrun on macOS). */
export async function selectBackend(options: { fake: boolean; agentName: string; fakeDevices?: number }): Promise<DeviceBackend> {
  if (options.fake) return new FakeBackend(options.agentName, {}, options.fakeDevices);
  const found: DeviceBackend[] = [];
  if (await onPath('adb')) found.push(new AdbBackend());
  if (process.platform === 'darwin' && (await onPath('xcrun'))) found.push(new SimctlBackend());
  if (!found.length) throw new Error('No device tools found: install adb (Android) or Xcode (iOS), or run with --fake');
  return found.length === 1 ? found[0] : new CombinedBackend(found);
}

/** Several backends as one: each session goes to the backend that owns its id. */
export class CombinedBackend implements DeviceBackend {
  readonly name: string;

  constructor(private readonly backends: DeviceBackend[]) {
    this.name = backends.map((b) => b.name).join('+');
  }

  owns(sessionId: string): boolean {
    return this.backends.some((b) => b.owns(sessionId));
  }

  async listDevices(): Promise<DeviceInfo[]> {
    const lists = await Promise.all(this.backends.map((b) => b.listDevices().catch(() => [])));
    return lists.flat();
  }

  screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture> {
    return this.owner(sessionId).screenshot(sessionId, format);
  }

  uiTree(sessionId: string): Promise<UiElement[]> {
    return this.owner(sessionId).uiTree(sessionId);
  }

  perform(sessionId: string, action: DeviceAction): Promise<unknown> {
    return this.owner(sessionId).perform(sessionId, action);
  }

  install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>> {
    return this.owner(sessionId).install(sessionId, download);
  }

  onEvent(sink: DeviceEventSink): void {
    for (const backend of this.backends) backend.onEvent?.(sink);
  }

  async startStream(sessionId: string, sink: AccessUnitSink, options?: StreamOptions): Promise<VideoStream> {
    const backend = this.owner(sessionId);
    if (!backend.startStream) throw unsupported(`Live video on ${backend.name}`);
    return backend.startStream(sessionId, sink, options);
  }

  private owner(sessionId: string): DeviceBackend {
    const backend = this.backends.find((b) => b.owns(sessionId));
    if (!backend) throw new BackendError('not_found', `No device ${sessionId}`);
    return backend;
  }
}
