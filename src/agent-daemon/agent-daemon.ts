import { EventEmitter } from 'node:events';
import { hostname, platform } from 'node:os';
import WebSocket, { RawData } from 'ws';
import {
  AGENT_CONNECT_PATH,
  CloseCode,
  sendBinaryFrame,
  MAX_MESSAGE_BYTES,
  RequestFrame,
  type DeviceInfo,
} from '../agents/protocol/agent-protocol';
import { AppiumBridge } from './appium/appium-bridge';
import { parseWebDriverRequest } from './appium/webdriver-request';
import { parseDeviceAction } from './backends/device-actions';
import { BackendError, DeviceBackend, unsupported } from './backends/device-backend';
import { buildDownloadUrl, downloadBuild } from './build-download';
import { ResourceUsage } from './resource-usage';
import { VideoStreams } from './video-streams';

export interface AgentDaemonOptions {
  /** http(s):// or ws(s):// base URL of the relay. */
  relayUrl: string;
  token: string;
  name: string;
  backend: DeviceBackend;
  version: string;
  /** The host's Appium server (`--appium`): hub sessions' WebDriver traffic goes there (docs/device-tests.md). */
  appium?: AppiumBridge;
  /** How often the device list is checked for changes (5 s). */
  devicePollMs?: number;
  /** How often CPU and memory are sent (60 s). */
  resourceIntervalMs?: number;
  /** Reconnect backoff: full jitter, random(0, min(cap, base·2^attempt)) (0.5 s, 30 s). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** No ping from the relay for this long means the connection is dead (75 s: 2.5 relay intervals). */
  relayPingTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Closes after which reconnecting cannot help: the token or its issuer is no longer good, or another agent took the name. */
const FINAL_CLOSE_CODES: number[] = [CloseCode.replaced, CloseCode.revoked, CloseCode.forbidden];
/** Upgrade refusals that reconnecting cannot fix (agent-protocol §1). */
const FINAL_HTTP_STATUSES = [400, 401, 403];

/**
 * The reference agent (agent-protocol.md): connects to the relay, says hello, keeps its device
 * list and CPU/memory current, answers requests through a device backend, and reconnects with
 * exponential backoff and full jitter until stopped.
 *
 * Events: `connected`, `disconnected` (code), `fatal` (message) when it gives up for good.
 */
export class AgentDaemon extends EventEmitter {
  private socket: WebSocket | null = null;
  private stopping = false;
  private attempt = 0;
  private timers: NodeJS.Timeout[] = [];
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pingWatchdog: NodeJS.Timeout | null = null;
  private lastDevices = '';
  /** The devices as last listed (the poll, or a New Session): a session's commands look theirs up here. */
  private knownDevices = new Map<string, DeviceInfo>();
  private readonly usage = new ResourceUsage();
  private readonly video: VideoStreams;
  private readonly log: (line: string) => void;

  constructor(private readonly options: AgentDaemonOptions) {
    super();
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.video = new VideoStreams(options.backend, () => this.socket);
    options.backend.onEvent?.((sessionId, event, data) => this.send({ type: 'event', sessionId, event, data }));
  }

  start(): void {
    this.stopping = false;
    this.connect();
  }

  /** Closes the connection (1000) and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.clearTimers();
    this.video.stopAll();
    this.options.appium?.close();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((done) => {
      const force = setTimeout(() => {
        socket.terminate();
        done();
      }, 2000);
      socket.once('close', () => {
        clearTimeout(force);
        done();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, 'agent stopping');
    });
  }

  private connect(): void {
    const url = new URL(AGENT_CONNECT_PATH, this.options.relayUrl.replace(/^http/i, 'ws'));
    const socket = new WebSocket(url, {
      headers: { Authorization: `Bearer ${this.options.token}`, 'X-Svc-Agent-Name': this.options.name },
      maxPayload: MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
      handshakeTimeout: 15_000,
    });
    this.socket = socket;
    let refused = false;
    socket.on('unexpected-response', (_req, res) => {
      refused = true;
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const message = `relay refused the connection: ${status} ${body}`.trim();
        if (FINAL_HTTP_STATUSES.includes(status)) return this.giveUp(message);
        this.log(message);
        this.scheduleReconnect();
      });
      socket.terminate();
    });
    socket.on('open', () => this.opened(socket));
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) void this.handle(socket, data.toString());
    });
    socket.on('ping', () => this.armPingWatchdog(socket));
    socket.on('error', (err) => this.log(`connection error: ${err.message}`));
    socket.on('close', (code: number, reason: Buffer) => {
      this.clearTimers();
      if (this.socket === socket) this.video.stopAll();
      if (refused) return;
      this.emit('disconnected', code);
      if (this.stopping) return;
      if (FINAL_CLOSE_CODES.includes(code)) return this.giveUp(`relay closed the connection: ${code} ${reason}`);
      this.log(`disconnected (${code}); reconnecting`);
      this.scheduleReconnect();
    });
  }

  private opened(socket: WebSocket): void {
    this.attempt = 0;
    this.lastDevices = '';
    this.log(`connected to ${this.options.relayUrl} as ${this.options.name} (${this.options.backend.name} backend)`);
    this.send({
      type: 'hello',
      // `appium` is beyond the contract (docs/agents.md): whether this agent can run hub sessions.
      agent: { version: this.options.version, os: platform(), hostname: hostname(), appium: !!this.options.appium },
    });
    this.armPingWatchdog(socket);
    void this.sendDevices().then(() => this.emit('connected'));
    this.sendResources();
    this.timers.push(
      setInterval(() => void this.sendDevices(), this.options.devicePollMs ?? 5000),
      setInterval(() => this.sendResources(), this.options.resourceIntervalMs ?? 60_000),
    );
  }

  private async handle(socket: WebSocket, text: string): Promise<void> {
    let frame: RequestFrame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (frame?.type !== 'request' || typeof frame.id !== 'string' || typeof frame.method !== 'string') return;
    const params = frame.params ?? {};
    const sessionId = String(params.sessionId ?? '');
    const { backend } = this.options;
    try {
      if (frame.method === 'screenshot') {
        const shot = await backend.screenshot(sessionId, params.format === 'jpeg' ? 'jpeg' : 'png');
        const header = { type: 'response', id: frame.id, ok: true, result: { mime: shot.mime } };
        // Header and image as two fragments of one message: the image is not copied into a frame first.
        if (socket.readyState === WebSocket.OPEN) sendBinaryFrame(socket, header, shot.data);
        return;
      }
      const result = await this.perform(frame.method, sessionId, params);
      this.send({ type: 'response', id: frame.id, ok: true, result: result ?? {} });
    } catch (err) {
      const code = err instanceof BackendError ? err.code : 'failed';
      this.send({ type: 'response', id: frame.id, ok: false, error: { code, message: (err as Error).message } });
    }
  }

  /** Every method but screenshot: its JSON result, or a BackendError. */
  private async perform(method: string, sessionId: string, params: Record<string, unknown>): Promise<unknown> {
    const { backend } = this.options;
    if (method === 'ui_tree') return { elements: await backend.uiTree(sessionId) };
    if (VideoStreams.handles(method)) return this.video.handle(method, sessionId, params);
    if (method === 'webdriver') return this.webdriver(sessionId, params);
    if (method === 'install_build') {
      const url = buildDownloadUrl(this.options.relayUrl, params.url);
      let discard = async () => undefined as void;
      try {
        return await backend.install(sessionId, async () => {
          const downloaded = await downloadBuild(url, this.options.token);
          discard = downloaded.discard;
          return downloaded.build;
        });
      } finally {
        await discard();
      }
    }
    const action = parseDeviceAction(method, params);
    if (!action) throw unsupported(method);
    return backend.perform(sessionId, action);
  }

  /** One WebDriver request of a hub session, to the host's Appium server for this device. */
  private async webdriver(sessionId: string, params: Record<string, unknown>): Promise<unknown> {
    const { appium } = this.options;
    if (!appium) throw unsupported('Appium (this agent was started without --appium)');
    const request = parseWebDriverRequest(params);
    // Listing devices is a tool run per call (adb devices, simctl list: 10-100+ ms): only a New
    // Session lists afresh; a session's commands take the device as last listed (Appium itself
    // answers for a device that went away mid-session).
    const isNewSession = request.method === 'POST' && request.path === '/session';
    const device = (!isNewSession && this.knownDevices.get(sessionId)) || (await this.listDevices()).find((d) => d.sessionId === sessionId);
    if (!device) throw new BackendError('not_found', `No device ${sessionId}`);
    if (device.state !== 'booted') throw new BackendError('not_booted', 'Device is not booted');
    return appium.forward(device, request);
  }

  private async listDevices(): Promise<DeviceInfo[]> {
    const devices = await this.options.backend.listDevices();
    this.knownDevices = new Map(devices.map((d) => [d.sessionId, d]));
    return devices;
  }

  private async sendDevices(): Promise<void> {
    try {
      const devices = await this.listDevices();
      const serialized = JSON.stringify(devices);
      if (serialized === this.lastDevices) return;
      if (this.send({ type: 'devices', devices })) this.lastDevices = serialized;
    } catch (err) {
      this.log(`listing devices failed: ${(err as Error).message}`);
    }
  }

  private sendResources(): void {
    this.send({ type: 'resources', ...this.usage.sample() });
  }

  private send(frame: object): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  private armPingWatchdog(socket: WebSocket): void {
    if (this.pingWatchdog) clearTimeout(this.pingWatchdog);
    this.pingWatchdog = setTimeout(() => {
      this.log('no ping from the relay; reconnecting');
      socket.terminate();
    }, this.options.relayPingTimeoutMs ?? 75_000);
  }

  private scheduleReconnect(): void {
    if (this.stopping) return;
    const base = this.options.backoffBaseMs ?? 500;
    const cap = this.options.backoffCapMs ?? 30_000;
    const delay = Math.random() * Math.min(cap, base * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private giveUp(message: string): void {
    this.stopping = true;
    this.clearTimers();
    this.log(message);
    this.emit('fatal', message);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    if (this.pingWatchdog) clearTimeout(this.pingWatchdog);
    this.pingWatchdog = null;
  }
}
