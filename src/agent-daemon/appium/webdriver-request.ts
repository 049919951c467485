import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import { BackendError } from '../backends/device-backend';

/**
 * The `webdriver` request (beyond the contract, docs/agents.md "Appium sessions"): one WebDriver
 * HTTP request of a hub session, to be sent to the agent's Appium server, and its answer returned
 * unchanged as `{ status, body }`.
 */
export interface WebDriverRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below Appium's base path: `/session` or `/session/<appium session id>/…`. */
  path: string;
  body?: unknown;
  /** On `POST /session`: the build the relay installed first, for the app capabilities. */
  app?: AppUnderTest;
}

export interface AppUnderTest {
  buildId: number;
  name: string;
  bundleId: string;
  platform: 'ios' | 'android';
  version: string;
}

export interface WebDriverAnswer {
  status: number;
  body: unknown;
}

const METHODS = ['GET', 'POST', 'DELETE'];
const PATH = /^\/session(\/[A-Za-z0-9._~%:/-]*)?$/;

/** The params of a `webdriver` request, checked: only WebDriver session paths reach the Appium server. */
export function parseWebDriverRequest(params: Record<string, unknown>): WebDriverRequest {
  const { method, path, body, app } = params;
  if (typeof method !== 'string' || !METHODS.includes(method)) throw new BackendError('failed', 'webdriver needs method GET, POST or DELETE');
  if (typeof path !== 'string' || !PATH.test(path) || path.includes('..')) throw new BackendError('failed', 'webdriver needs a /session path');
  return { method: method as WebDriverRequest['method'], path, body, app: isApp(app) ? app : undefined };
}

function isApp(value: unknown): value is AppUnderTest {
  const app = value as AppUnderTest | null;
  return !!app && typeof app === 'object' && typeof app.bundleId === 'string' && typeof app.buildId === 'number';
}

/** The device's id as Appium's drivers take it in `appium:udid`: the adb serial or the simulator's UDID. */
export function appiumUdid(sessionId: string): string {
  return sessionId.replace(/^(android|ios)-/, '');
}

/**
 * How an agent turns the capabilities a client sent for "a device like this" into the ones its
 * Appium server needs for this very device (`appium:udid`) and the build the relay installed.
 */
export interface CapabilityMapping {
  map(capabilities: Record<string, unknown>, device: DeviceInfo, app: AppUnderTest | undefined): Promise<Record<string, unknown>>;
  /** The Appium session ended (deleted, or the relay ended it): drop what was made for it. */
  ended?(appiumSessionId: string): void;
  /** Sees every request before Appium does; an answer here is the request's answer (Appium is not asked). */
  intercept?(device: DeviceInfo, request: WebDriverRequest): WebDriverAnswer | null;
}

/** Real devices: the device's udid, and the installed app (already on the device: no reinstall). */
export class DeviceCapabilityMapping implements CapabilityMapping {
  async map(capabilities: Record<string, unknown>, device: DeviceInfo, app: AppUnderTest | undefined) {
    const mapped: Record<string, unknown> = { ...capabilities, 'appium:udid': appiumUdid(device.sessionId) };
    if (app) {
      mapped[app.platform === 'ios' ? 'appium:bundleId' : 'appium:appPackage'] = app.bundleId;
      mapped['appium:noReset'] = true;
    }
    return mapped;
  }
}

/** `svc:*` capabilities are the relay's; Appium would refuse them as unknown vendor prefixes only for some drivers, so they never reach it. */
export function withoutRelayCapabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(capabilities).filter(([key]) => !key.startsWith('svc:')));
}
