import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ReceivedRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  /** The raw body bytes as they arrived. */
  body: Buffer;
  at: number;
}

export interface ReceiverEvent {
  type: 'closed';
  path: string;
  bytes?: number;
  at: number;
}

const CAP_NET_ADMIN = 12;

/**
 * Whether this process may create network namespaces and veth pairs (CAP_NET_ADMIN and `ip`).
 * Checked synchronously, so test files can choose `it` or `it.skip` when they are collected.
 */
export function canCreateNetns(): { ok: true } | { ok: false; why: string } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const capEff = BigInt('0x' + (/CapEff:\s*([0-9a-f]+)/i.exec(status)?.[1] ?? '0'));
    if (!((capEff >> BigInt(CAP_NET_ADMIN)) & BigInt(1))) return { ok: false, why: 'no CAP_NET_ADMIN' };
  } catch {
    return { ok: false, why: 'cannot read /proc/self/status' };
  }
  const probe = spawnSync('ip', ['netns', 'list']);
  if (probe.error || probe.status !== 0) return { ok: false, why: '`ip netns` is not usable' };
  return { ok: true };
}

function ip(...args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${result.stderr || result.error}`);
}

/** A /30 in 10.231.0.0/16 that no interface on this machine uses yet (other worktrees test in parallel). */
function freeSubnet(): number {
  const inUse = spawnSync('ip', ['-o', '-4', 'addr', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (let i = 0; i < 50; i++) {
    const octet = 100 + Math.floor(Math.random() * 150);
    if (!inUse.includes(`10.231.${octet}.`)) return octet;
  }
  throw new Error('no free 10.231.x.0/30 subnet');
}

/**
 * A real HTTP receiver (support/receiver.js) on a private address inside a network namespace this
 * test creates: namespace side 10.231.N.2, host side 10.231.N.1 (a veth pair). Traffic stays on
 * this machine. `tag` keeps names unique per test file; the pid keeps them unique per worker.
 */
export class LanReceiver {
  readonly requests: ReceivedRequest[] = [];
  readonly events: ReceiverEvent[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly namespace: string,
    private readonly hostLink: string,
    readonly hostAddress: string,
    readonly address: string,
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  static async start(tag: string, port = 0): Promise<LanReceiver> {
    const suffix = `${tag}${process.pid % 100000}`;
    const namespace = `svcwh-${suffix}`;
    const hostLink = `swh${suffix}h`;
    const nsLink = `swh${suffix}n`;
    const octet = freeSubnet();
    const hostAddress = `10.231.${octet}.1`;
    const address = `10.231.${octet}.2`;
    cleanup(namespace, hostLink);
    try {
      ip('netns', 'add', namespace);
      ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', nsLink);
      ip('link', 'set', nsLink, 'netns', namespace);
      ip('addr', 'add', `${hostAddress}/30`, 'dev', hostLink);
      ip('link', 'set', hostLink, 'up');
      ip('netns', 'exec', namespace, 'ip', 'addr', 'add', `${address}/30`, 'dev', nsLink);
      ip('netns', 'exec', namespace, 'ip', 'link', 'set', nsLink, 'up');
      ip('netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up');
    } catch (err) {
      cleanup(namespace, hostLink);
      throw err;
    }
    const child = spawn('ip', ['netns', 'exec', namespace, process.execPath, join(__dirname, 'receiver.js'), address, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const listening = new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const event = JSON.parse(line);
        if (event.type === 'listening') resolve(event.port);
        else receiver?.accept(event);
      });
    });
    let receiver: LanReceiver | undefined;
    try {
      const actualPort = await listening;
      receiver = new LanReceiver(namespace, hostLink, hostAddress, address, actualPort, child);
      return receiver;
    } catch (err) {
      child.kill('SIGKILL');
      cleanup(namespace, hostLink);
      throw err;
    }
  }

  /** `http://10.231.N.2:<port><path>` */
  url(path = '/ok'): string {
    return `http://${this.address}:${this.port}${path}`;
  }

  requestsTo(prefix: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(prefix));
  }

  /** Resolves once `count` requests whose path starts with `prefix` have arrived. */
  async waitFor(prefix: string, count: number, timeoutMs = 4000): Promise<ReceivedRequest[]> {
    await this.until(() => this.requestsTo(prefix).length >= count, timeoutMs, `${count} request(s) to ${prefix}`);
    return this.requestsTo(prefix);
  }

  async waitForEvent(path: string, timeoutMs = 8000): Promise<ReceiverEvent> {
    await this.until(() => this.events.some((e) => e.path === path), timeoutMs, `a close on ${path}`);
    return this.events.find((e) => e.path === path)!;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    if (this.child.exitCode === null && this.child.signalCode === null) await exited;
    cleanup(this.namespace, this.hostLink);
  }

  private accept(event: { type: string } & Record<string, unknown>): void {
    if (event.type === 'request') {
      this.requests.push({ ...(event as unknown as ReceivedRequest), body: Buffer.from(String(event.body), 'base64') });
    } else if (event.type === 'closed') {
      this.events.push(event as unknown as ReceiverEvent);
    }
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  private until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }
}

function cleanup(namespace: string, hostLink: string): void {
  spawnSync('ip', ['link', 'del', hostLink]);
  spawnSync('ip', ['netns', 'del', namespace]);
}

/** Why LAN-receiver tests cannot run here, or null when they can. */
export function netnsSkipReason(): string | null {
  const check = canCreateNetns();
  return check.ok ? null : `cannot create a network namespace (${check.why}); run as root with CAP_NET_ADMIN`;
}

export { describeUnless } from '../../support/describe-unless';
