import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { lanHostAddress, leaseLanAddress, onLan, testLanSkipReason } from './test-lan';

const run = promisify(execFile);

export interface RemoteResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/**
 * A second machine for tests: an address of its own on the run's test LAN (test-lan.ts), whose
 * requests reach the relay from a real non-loopback TCP peer at `hostAddress`.
 * `RemoteClient.unavailableReason()` says why it cannot run here, so suites skip loudly instead of passing.
 */
export class RemoteClient {
  readonly hostAddress = lanHostAddress();

  private constructor(
    readonly peerAddress: string,
    private readonly release: () => void,
  ) {}

  /** Null when the test LAN is up, else the reason it is not. */
  static unavailableReason(): string | null {
    return testLanSkipReason();
  }

  static create(): RemoteClient {
    const lease = leaseLanAddress();
    return new RemoteClient(lease.address, lease.release);
  }

  destroy(): void {
    this.release();
  }

  /** Sends one HTTP request from inside the namespace (curl run there) and returns the answer. */
  async request(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<RemoteResponse> {
    const args = onLan('curl', '-sS', '-i', '--max-time', '10', '--interface', this.peerAddress, '-X', method);
    for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
    if (options.body !== undefined) {
      args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(options.body));
    }
    args.push(url);
    const { stdout } = await run('ip', args, { timeout: 15_000, maxBuffer: 10 * 1024 * 1024 });
    const split = stdout.indexOf('\r\n\r\n');
    const head = stdout.slice(0, split).split('\r\n');
    const text = stdout.slice(split + 4);
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0])?.[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: unknown = undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status, headers, text, body };
  }
}
