import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../agents/protocol/ui-tree';
import type { DeviceAction } from './device-actions';
import type { AccessUnitSink, VideoStream } from './encoder-process';

export { BackendError, unsupported } from './backend-error';

export interface Capture {
  mime: 'image/png' | 'image/jpeg';
  data: Buffer;
}

/** A build the agent downloaded from its relay for install_build, in a temp folder removed afterwards. */
export interface DownloadedBuild {
  path: string;
  /** As the relay named it (Content-Disposition): tells an .apk from an .app.zip or .tar.gz. */
  fileName: string;
  bytes: number;
  sha256: string;
}

/** Where a backend sends `{ type: "event" }` messages about its sessions. */
export type DeviceEventSink = (sessionId: string, event: string, data: unknown) => void;

/** A way to reach devices (adb, simctl, fake). Failures are BackendErrors carrying a protocol error code. */
export interface DeviceBackend {
  readonly name: string;
  owns(sessionId: string): boolean;
  listDevices(): Promise<DeviceInfo[]>;
  screenshot(sessionId: string, format: 'png' | 'jpeg'): Promise<Capture>;
  uiTree(sessionId: string): Promise<UiElement[]>;
  /** An input action (tap, swipe, type_text, press_button, launch_app); `unsupported` when the backend cannot. */
  perform(sessionId: string, action: DeviceAction): Promise<unknown>;
  /**
   * install_build: checks the session first, then calls `download` (the daemon fetches the build from
   * the relay) and installs what it got. Answers `{ installed: true, … }`.
   */
  install(sessionId: string, download: () => Promise<DownloadedBuild>): Promise<Record<string, unknown>>;
  onEvent?(sink: DeviceEventSink): void;
  /**
   * Live video (docs/agents.md "Live video"): starts encoding the session's screen as H.264, each
   * access unit to `sink`, until stopped. Checks the session first (not_found, not_booted); a
   * backend without it answers `unsupported`. An encoder that takes a rate keeps under `maxBitrate`.
   */
  startStream?(sessionId: string, sink: AccessUnitSink, options?: StreamOptions): Promise<VideoStream>;
}

/** What the relay asked of a stream (`stream_start`'s params beyond the session). */
export interface StreamOptions {
  /** Bits per second the stream should stay under (the relay's recording budget), when the relay said. */
  maxBitrate?: number;
}
