import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { lanHostAddress, leaseLanAddress, onLan, testLanSkipReason } from '../../support/test-lan';

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

/**
 * A real HTTP receiver (support/receiver.js) at an address of its own on the run's test LAN
 * (test/support/test-lan.ts): another machine, as far as the relay can tell. `hostAddress` is
 * this machine's address on that LAN.
 */
export class LanReceiver {
  readonly requests: ReceivedRequest[] = [];
  readonly events: ReceiverEvent[] = [];
  readonly hostAddress = lanHostAddress();
  private waiters: (() => void)[] = [];

  private constructor(
    readonly address: string,
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly release: () => void,
  ) {}

  static async start(port = 0): Promise<LanReceiver> {
    const { address, release } = leaseLanAddress();
    const child = spawn('ip', onLan(process.execPath, join(__dirname, 'receiver.js'), address, String(port)), {
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
      receiver = new LanReceiver(address, actualPort, child, release);
      return receiver;
    } catch (err) {
      child.kill('SIGKILL');
      release();
      throw err;
    }
  }

  /** `http://10.231.N.x:<port><path>` */
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
    this.release();
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

/** Why LAN-receiver tests cannot run here, or null when they can. */
export { testLanSkipReason as netnsSkipReason };
export { describeUnless } from '../../support/describe-unless';
