import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
  private readonly base: URL;
  private readonly agent: HttpAgent;

  constructor(
    readonly baseUrl: string,
    private readonly mapping: CapabilityMapping,
  ) {
    this.base = new URL(baseUrl);
    this.agent = new (this.base.protocol === 'https:' ? HttpsAgent : HttpAgent)({ keepAlive: true });
  }

  async forward(device: DeviceInfo, request: WebDriverRequest): Promise<WebDriverAnswer> {
    const own = this.mapping.intercept?.(device, request);
    if (own) return own;
    let body = request.body;
    if (request.method === 'POST' && request.path === '/session') {
      const requested = capabilitiesOf(request.body);
      const mapped = await this.mapping.map(withoutRelayCapabilities(requested), device, request.app);
      body = { capabilities: { alwaysMatch: mapped, firstMatch: [{}] } };
    }
    let answer: { status: number; text: string };
    try {
      answer = await this.send(request.method, request.path, body === undefined ? undefined : JSON.stringify(body));
    } catch (err) {
      throw new BackendError('failed', `The agent's Appium server at ${this.baseUrl} did not answer: ${(err as Error).message}`);
    }
    let parsed: unknown = null;
    try {
      parsed = answer.text ? JSON.parse(answer.text) : null;
    } catch {
      parsed = { value: { error: 'unknown error', message: `Appium answered ${answer.status} with a body that is not JSON`, stacktrace: '' } };
    }
    return { status: answer.status, body: parsed };
  }

  /**
   * node:http on a kept-alive connection, not fetch(): every command of a session takes this path,
   * and fetch's streams cost ~0.5 ms of the agent's CPU a command (bench/device-tests, the hop).
   */
  private send(method: string, path: string, json: string | undefined): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = json === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) };
      const req = (this.base.protocol === 'https:' ? httpsRequest : httpRequest)(
        new URL(this.base.pathname.replace(/\/+$/, '') + path, this.base),
        { method, headers, agent: this.agent, timeout: APPIUM_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${APPIUM_TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end(json);
    });
  }

  /** The kept-alive connections to Appium, closed when the agent stops. */
  close(): void {
    this.agent.destroy();
  }
}
