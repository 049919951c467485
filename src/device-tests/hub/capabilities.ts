import { capabilitiesOf } from '../../agents/protocol/webdriver-capabilities';
import { W3CError } from './w3c-error';

/** `svc:build`: a build id, or the newest build of an app (id or bundle id) on a branch. */
export type BuildChoice = { id: number } | { app: number | string; branch: string | null };

/** What a new hub session asks for, read from its W3C capabilities (docs/device-tests.md "Capabilities"). */
export interface HubRequest {
  platform: 'android' | 'ios' | null;
  platformVersion: string | null;
  deviceName: string | null;
  build: BuildChoice | null;
  runName: string | null;
  /** How long it may wait for a free device (svc:queueTimeout, seconds in the capability). */
  queueTimeoutMs: number;
  /** No command for this long ends the session (appium:newCommandTimeout, seconds). */
  newCommandTimeoutMs: number;
}

export const DEFAULT_QUEUE_TIMEOUT_S = 300;
export const MAX_QUEUE_TIMEOUT_S = 3600;
export const DEFAULT_NEW_COMMAND_TIMEOUT_S = 60;
export const MAX_NEW_COMMAND_TIMEOUT_S = 3600;

/** Names clients send for "any device" (Appium's own examples): they do not narrow the match. */
const ANY_DEVICE = new Set(['', 'android', 'android emulator', 'android device', 'iphone simulator', 'ios simulator', 'ios device', 'emulator', 'simulator']);

export function readHubRequest(body: unknown): HubRequest {
  const caps = capabilitiesOf(body);
  if (!Object.keys(caps).length) throw invalid('capabilities are required ({ "capabilities": { "alwaysMatch": { … } } })');
  const platformName = optionalString(caps, 'platformName')?.toLowerCase() ?? null;
  if (platformName !== null && platformName !== 'android' && platformName !== 'ios') {
    throw invalid(`platformName must be Android or iOS, not ${platformName.slice(0, 40)}`);
  }
  const deviceName = optionalString(caps, 'appium:deviceName');
  return {
    platform: platformName,
    platformVersion: optionalString(caps, 'appium:platformVersion'),
    deviceName: deviceName && !ANY_DEVICE.has(deviceName.toLowerCase()) ? deviceName : null,
    build: buildChoice(caps['svc:build']),
    runName: optionalString(caps, 'svc:name')?.slice(0, 200) ?? null,
    queueTimeoutMs: seconds(caps, 'svc:queueTimeout', DEFAULT_QUEUE_TIMEOUT_S, MAX_QUEUE_TIMEOUT_S) * 1000,
    newCommandTimeoutMs: seconds(caps, 'appium:newCommandTimeout', DEFAULT_NEW_COMMAND_TIMEOUT_S, MAX_NEW_COMMAND_TIMEOUT_S) * 1000,
  };
}

function buildChoice(value: unknown): BuildChoice | null {
  if (value === undefined || value === null) return null;
  if (isId(value)) return { id: Number(value) };
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { app, branch } = value as { app?: unknown; branch?: unknown };
    const appOk = isId(app) || (typeof app === 'string' && app.length > 0 && app.length <= 255);
    if (appOk && (branch === undefined || branch === null || (typeof branch === 'string' && branch.length <= 255))) {
      return { app: isId(app) ? Number(app) : (app as string), branch: (branch as string | undefined) ?? null };
    }
  }
  throw invalid('svc:build must be a build id, or { "app": <app id or bundle id>, "branch": "<branch>" }');
}

function isId(value: unknown): boolean {
  return (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) || (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value));
}

function optionalString(caps: Record<string, unknown>, key: string): string | null {
  const value = caps[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${key} must be a string`);
  return value.trim();
}

function seconds(caps: Record<string, unknown>, key: string, fallback: number, max: number): number {
  const value = caps[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) throw invalid(`${key} must be a number of seconds from 0 to ${max}`);
  // Appium's newCommandTimeout 0 means "never": the hub still ends a session nobody talks to, after the maximum.
  return value === 0 && key === 'appium:newCommandTimeout' ? max : value;
}

const invalid = (message: string) => new W3CError('invalid argument', message);
