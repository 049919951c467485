import WebSocket, { RawData } from 'ws';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { decodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { FakeBackend, FakeVideoOptions } from '../../src/agent-daemon/backends/fake-backend';
import { MemberFactory, TestMember } from '../support/factory';
import type { TestRelay } from '../support/test-relay';

export const AGENT_PATH = '/api/v1/agent/connect';

export function wsUrl(relay: TestRelay, path: string): string {
  return relay.url.replace(/^http/, 'ws') + path;
}

/** An Admin's PAT with the agent scope (only Admins may issue it). */
export async function agentToken(members: MemberFactory, issuer?: TestMember, expiresInDays?: number): Promise<string> {
  return members.pat(issuer ?? (await members.admin()), 'agent', expiresInDays);
}

/** The plain HTTP answer to an upgrade that the relay refuses. */
export function upgradeRefusal(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    socket.on('error', () => undefined);
  });
}

export interface Received {
  data: Buffer;
  isBinary: boolean;
  json?: any;
}

/**
 * A hand-driven WebSocket peer (an agent that lies, stalls or goes away, or an automation client):
 * every frame it receives is queued for `next()`.
 */
export class TestPeer {
  readonly socket: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly queue: Received[] = [];
  private waiters: { match: (m: Received) => boolean; resolve: (m: Received) => void }[] = [];

  constructor(url: string, headers: Record<string, string>, options: WebSocket.ClientOptions = {}) {
    this.socket = new WebSocket(url, { headers, ...options });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (_q, res) => reject(new Error(`refused: ${res.statusCode}`)));
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    this.socket.on('error', () => undefined);
    this.socket.on('message', (data: RawData, isBinary: boolean) => this.push(data as Buffer, isBinary));
  }

  static async agent(relay: TestRelay, token: string, name: string, options: WebSocket.ClientOptions = {}) {
    const peer = new TestPeer(wsUrl(relay, AGENT_PATH), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': name }, options);
    await peer.opened;
    return peer;
  }

  send(frame: object | Buffer | string): void {
    this.socket.send(Buffer.isBuffer(frame) || typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends hello and a device list, and waits until the relay knows the devices. */
  async announce(relay: TestRelay, devices: object[]): Promise<void> {
    this.send({ type: 'hello', agent: { version: 'test', os: 'linux', hostname: 'test' } });
    this.send({ type: 'devices', devices });
    const ids = devices.map((d) => (d as { sessionId: string }).sessionId);
    await until(() => ids.every((id) => relay.app.get(AgentDirectory).locate(id)?.connection));
  }

  /** The next received frame that matches (already queued or still to come). */
  next(match: (m: Received) => boolean = () => true, timeoutMs = 5000): Promise<Received> {
    const index = this.queue.findIndex(match);
    if (index >= 0) return Promise.resolve(this.queue.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching frame arrived')), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  nextRequest(method?: string): Promise<any> {
    return this.next((m) => m.json?.type === 'request' && (!method || m.json.method === method)).then((m) => m.json);
  }

  close(): void {
    this.socket.close();
  }

  private push(data: Buffer, isBinary: boolean): void {
    let json: unknown;
    if (isBinary) json = decodeBinaryFrame(data)?.header;
    else {
      try {
        json = JSON.parse(data.toString());
      } catch {
        json = undefined;
      }
    }
    const message: Received = { data, isBinary, json };
    const waiter = this.waiters.find((w) => w.match(message));
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    } else this.queue.push(message);
  }
}

/**
 * The reference agent with its fake backend, connected and with its devices known to the relay.
 * Without live video unless `video` says otherwise (no ffmpeg per test; the dashboard shows screenshots).
 */
export async function startFakeAgent(relay: TestRelay, token: string, name: string, video: FakeVideoOptions = { enabled: false }): Promise<AgentDaemon> {
  const daemon = new AgentDaemon({
    relayUrl: relay.url,
    token,
    name,
    backend: new FakeBackend(name, video),
    version: 'test',
    backoffBaseMs: 50,
    backoffCapMs: 500,
    log: () => undefined,
  });
  daemon.start();
  await until(() => relay.app.get(AgentDirectory).locate(`fake-ios-${name}`)?.connection);
  return daemon;
}

export async function until(condition: () => unknown, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const device = (sessionId: string, state: 'booted' | 'shutdown' = 'booted') => ({
  sessionId,
  name: 'Test device',
  platform: 'android',
  state,
  osVersion: '15',
});
