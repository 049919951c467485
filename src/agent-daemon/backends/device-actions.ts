import { BackendError } from './backend-error';

/** Hardware and system buttons press_button knows; a backend answers `unsupported` for one it cannot press. */
export const DEVICE_BUTTONS = ['home', 'back', 'enter', 'volume_up', 'volume_down', 'lock'] as const;
export type DeviceButton = (typeof DEVICE_BUTTONS)[number];

/**
 * The input methods of a device session (docs/agents.md "Device methods"), with their params
 * checked once here so every backend receives them well-formed. Coordinates are fractions 0–1
 * of the screen, like UI element frames.
 */
export type DeviceAction =
  | { method: 'tap'; x: number; y: number }
  | { method: 'swipe'; fromX: number; fromY: number; toX: number; toY: number; durationMs: number }
  | { method: 'type_text'; text: string }
  | { method: 'press_button'; button: DeviceButton }
  | { method: 'launch_app'; bundleId: string };

export const DEVICE_ACTION_METHODS = ['tap', 'swipe', 'type_text', 'press_button', 'launch_app'] as const;

const MAX_TEXT = 4096;
const MAX_SWIPE_MS = 10_000;

/** The action a request asks for; null for a method that is not an input action (the caller answers `unsupported`). */
export function parseDeviceAction(method: string, params: Record<string, unknown>): DeviceAction | null {
  switch (method) {
    case 'tap':
      return { method, x: fraction(params, 'x'), y: fraction(params, 'y') };
    case 'swipe': {
      const duration = params.durationMs ?? 300;
      if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 0 || duration > MAX_SWIPE_MS) {
        throw invalid(`durationMs must be a whole number of milliseconds from 0 to ${MAX_SWIPE_MS}`);
      }
      return {
        method,
        fromX: fraction(params, 'fromX'),
        fromY: fraction(params, 'fromY'),
        toX: fraction(params, 'toX'),
        toY: fraction(params, 'toY'),
        durationMs: duration,
      };
    }
    case 'type_text':
      if (typeof params.text !== 'string' || !params.text || params.text.length > MAX_TEXT) {
        throw invalid(`text must be a string of 1 to ${MAX_TEXT} characters`);
      }
      return { method, text: params.text };
    case 'press_button':
      if (!(DEVICE_BUTTONS as readonly unknown[]).includes(params.button)) {
        throw invalid(`button must be one of ${DEVICE_BUTTONS.join(', ')}`);
      }
      return { method, button: params.button as DeviceButton };
    case 'launch_app':
      if (typeof params.bundleId !== 'string' || !/^[A-Za-z0-9._-]{1,255}$/.test(params.bundleId)) {
        throw invalid('bundleId must be a bundle id or package name (letters, digits, . _ -)');
      }
      return { method, bundleId: params.bundleId };
    default:
      return null;
  }
}

function fraction(params: Record<string, unknown>, key: string): number {
  const value = params[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalid(`${key} must be a number from 0 to 1 (a fraction of the screen)`);
  }
  return value;
}

const invalid = (message: string) => new BackendError('failed', message);
