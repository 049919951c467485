import type { AgentErrorCode, DeviceInfo } from '../../agents/protocol/agent-protocol';
import type { UiElement } from '../../sessions/ui-element.mapper';

export interface Capture {
  mime: 'image/png' | 'image/jpeg';
  data: Buffer;
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
  /** Any other method (tap, swipe, …); `unsupported` when the backend cannot. */
  perform(sessionId: string, method: string, params: Record<string, unknown>): Promise<unknown>;
  onEvent?(sink: DeviceEventSink): void;
}

export class BackendError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const unsupported = (what: string) => new BackendError('unsupported', `${what} is not supported here`);
