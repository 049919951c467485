import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RemoteResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/**
 * A second machine for tests: a network namespace joined to this one by a veth pair with invented
 * addresses (10.231.x.1 on this side, 10.231.x.2 inside). Requests sent from inside the namespace
 * reach the relay from a real non-loopback TCP peer. Traffic stays between these two addresses.
 *
 * Creating it needs CAP_NET_ADMIN and `ip`; `RemoteClient.unavailableReason()` says why it cannot
 * run, so suites skip loudly instead of passing.
 */
export class RemoteClient {
  readonly hostAddress: string;
  readonly peerAddress: string;
  private readonly ns: string;
  private readonly hostIf: string;
  private readonly peerIf: string;

  private constructor(tag: number) {
    // Distinct per process so parallel suites (or worktrees) on one kernel do not collide.
    const subnet = 100 + (tag % 150);
    this.hostAddress = `10.231.${subnet}.1`;
    this.peerAddress = `10.231.${subnet}.2`;
    this.ns = `svc-test-${tag}`;
    this.hostIf = `svh${tag % 1_000_000}`;
    this.peerIf = `svp${tag % 1_000_000}`;
  }

  /** Null when a namespace can be created here, else the reason it cannot. */
  static unavailableReason(): string | null {
    if (process.env.SVC_TEST_NETNS === 'off') return 'disabled by SVC_TEST_NETNS=off';
    try {
      execFileSync('ip', ['-V'], { stdio: 'ignore' });
    } catch {
      return 'the `ip` command is not installed';
    }
    const probe = `svc-probe-${process.pid}`;
    try {
      execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
      execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
      return null;
    } catch (err) {
      return `cannot create a network namespace (needs CAP_NET_ADMIN): ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
    }
  }

  static create(): RemoteClient {
    const client = new RemoteClient(process.pid);
    client.destroy();
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    try {
      ip('netns', 'add', client.ns);
      ip('link', 'add', client.hostIf, 'type', 'veth', 'peer', 'name', client.peerIf);
      ip('link', 'set', client.peerIf, 'netns', client.ns);
      ip('addr', 'add', `${client.hostAddress}/30`, 'dev', client.hostIf);
      ip('link', 'set', client.hostIf, 'up');
      ip('netns', 'exec', client.ns, 'ip', 'addr', 'add', `${client.peerAddress}/30`, 'dev', client.peerIf);
      ip('netns', 'exec', client.ns, 'ip', 'link', 'set', client.peerIf, 'up');
      ip('netns', 'exec', client.ns, 'ip', 'link', 'set', 'lo', 'up');
    } catch (err) {
      client.destroy();
      throw err;
    }
    return client;
  }

  /** Removes the namespace and the veth pair (deleting one end removes both). */
  destroy(): void {
    for (const args of [
      ['link', 'del', this.hostIf],
      ['netns', 'del', this.ns],
    ]) {
      try {
        execFileSync('ip', args, { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
  }

  /** Sends one HTTP request from inside the namespace (curl run there) and returns the answer. */
  async request(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<RemoteResponse> {
    const args = ['netns', 'exec', this.ns, 'curl', '-sS', '-i', '--max-time', '10', '-X', method];
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
