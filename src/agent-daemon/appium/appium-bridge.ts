import type { DeviceInfo } from '../../agents/protocol/agent-protocol';
import { capabilitiesOf } from '../../agents/protocol/webdriver-capabilities';
import { BackendError } from '../backends/device-backend';
import { CapabilityMapping, WebDriverAnswer, WebDriverRequest, withoutRelayCapabilities } from './webdriver-request';

/** A WebDriver command that Appium has not answered in this long is answered 504 here (install and boot happen before). */
const APPIUM_TIMEOUT_MS = 240_000;

/**
 * The agent's side of a hub session: sends each WebDriver request the relay forwards to the host's
 * Appium server (loopback, or wherever `--appium` points) and hands back its status and body as
 * they came. Only a new session is rewritten: its capabilities get this device and the build.
 */
export class AppiumBridge {
  constructor(
    readonly baseUrl: string,
    private readonly mapping: CapabilityMapping,
  ) {}

  async forward(device: DeviceInfo, request: WebDriverRequest): Promise<WebDriverAnswer> {
    const own = this.mapping.intercept?.(device, request);
    if (own) return own;
    let body = request.body;
    if (request.method === 'POST' && request.path === '/session') {
      const requested = capabilitiesOf(request.body);
      const mapped = await this.mapping.map(withoutRelayCapabilities(requested), device, request.app);
      body = { capabilities: { alwaysMatch: mapped, firstMatch: [{}] } };
    }
    const url = this.baseUrl.replace(/\/+$/, '') + request.path;
    let res: Response;
    try {
      res = await fetch(url, {
        method: request.method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(APPIUM_TIMEOUT_MS),
      });
    } catch (err) {
      throw new BackendError('failed', `The agent's Appium server at ${this.baseUrl} did not answer: ${(err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { value: { error: 'unknown error', message: `Appium answered ${res.status} with a body that is not JSON`, stacktrace: '' } };
    }
    return { status: res.status, body: parsed };
  }
}
