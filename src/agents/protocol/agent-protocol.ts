/**
 * The agent and device-session WebSocket protocol (../shared/agent-protocol.md), as data:
 * constants, frame shapes, and the codec both the relay and the reference agent use.
 * Parsing never throws: a frame that does not fit is `null`, and the caller logs and ignores it.
 */
import type { BinaryPayload } from './binary-payload';
import { parseVideoFrame, VideoFrameMessage } from './video-protocol';

export type { BinaryPayload } from './binary-payload';

export const AGENT_CONNECT_PATH = '/api/v1/agent/connect';
export const DEVICE_SESSION_CONNECT_PATH = '/api/v1/sessions/:sessionId/connect';
export const AGENT_NAME_HEADER = 'x-svc-agent-name';
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Messages above this close the socket with 1009 (§1). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export { CloseCode } from '../../common/net/close-codes';

export type DeviceState = 'booted' | 'shutdown';
export type AgentErrorCode = 'not_found' | 'not_booted' | 'unsupported' | 'failed';

export interface DeviceInfo {
  sessionId: string;
  name: string;
  platform: string;
  state: DeviceState;
  osVersion: string;
}

export interface AgentHello {
  version?: string;
  os?: string;
  hostname?: string;
  /** Beyond the contract (docs/agents.md "Appium sessions"): the agent forwards `webdriver` requests to an Appium server. */
  appium?: boolean;
}

export interface RequestFrame {
  type: 'request';
  id: string;
  method: string;
  params: Record<string, unknown>;
}

export interface AgentError {
  code: string;
  message: string;
}


/** A response, text or binary; `payload` is set for the binary form. */
export type ResponseFrame =
  | { type: 'response'; id: string; ok: true; result: unknown; payload: BinaryPayload | null }
  | { type: 'response'; id: string; ok: false; error: AgentError };

export type AgentMessage =
  | { type: 'hello'; agent: AgentHello }
  | { type: 'devices'; devices: DeviceInfo[] }
  | { type: 'resources'; cpuPercent: number; memPercent: number }
  | ResponseFrame
  | { type: 'event'; sessionId: string; event: string; data: unknown }
  /** A live video access unit (docs/agents.md "Live video"). */
  | VideoFrameMessage
  /** A well-formed frame of a type this relay does not know: ignored without complaint (additions stay compatible). */
  | { type: 'unknown' };

/** A device-session client's request (§3): the id is the client's own, echoed back unchanged. */
export interface ClientRequest {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
}

export const MAX_ID_LENGTH = 200;
export const MAX_DEVICES = 1000;

/** `[4-byte big-endian length N][N bytes UTF-8 JSON header][payload]` (§2.4). */
export function encodeBinaryFrame(header: object, payload: Buffer | BinaryPayload): Buffer {
  return Buffer.concat([binaryFramePrefix(header), ...(Buffer.isBuffer(payload) ? [payload] : payload)]);
}

/** What sendBinaryFrame needs of a `ws` WebSocket. */
export interface FragmentSink {
  send(data: Buffer, options: { binary: true; fin: boolean }): void;
}

/**
 * Sends a binary response as one message of several fragments (the prefix, then each payload
 * chunk as it is): the same bytes as encodeBinaryFrame, without copying the payload into one buffer.
 */
export function sendBinaryFrame(socket: FragmentSink, header: object, payload: Buffer | BinaryPayload): void {
  const chunks = Buffer.isBuffer(payload) ? [payload] : payload.filter((chunk) => chunk.length > 0);
  socket.send(binaryFramePrefix(header), { binary: true, fin: chunks.length === 0 });
  chunks.forEach((chunk, i) => socket.send(chunk, { binary: true, fin: i === chunks.length - 1 }));
}

/** The part of a binary frame before its payload: the header's length and the header. */
export function binaryFramePrefix(header: object): Buffer {
  const json = JSON.stringify(header);
  const prefix = Buffer.allocUnsafe(4 + Buffer.byteLength(json));
  prefix.writeUInt32BE(prefix.length - 4, 0);
  prefix.write(json, 4, 'utf8');
  return prefix;
}

export function decodeBinaryFrame(data: Buffer): { header: unknown; payload: Buffer } | null {
  const frame = decodeBinaryFragments([data]);
  return frame && { header: frame.header, payload: frame.payload[0] ?? Buffer.alloc(0) };
}

/**
 * A binary frame received as fragments (`ws` binaryType `fragments`): the header is read from
 * wherever it lies (only its few bytes are copied when it straddles fragments), the payload is the
 * fragments' remaining slices, not joined.
 */
export function decodeBinaryFragments(fragments: readonly Buffer[]): { header: unknown; payload: Buffer[] } | null {
  const lengthBytes = leadingBytes(fragments, 0, 4);
  if (!lengthBytes) return null;
  const length = lengthBytes.readUInt32BE(0);
  const json = length > 0 ? leadingBytes(fragments, 4, length) : null;
  const header = json ? parseJson(json) : undefined;
  if (header === undefined) return null;
  const payload: Buffer[] = [];
  let skip = 4 + length;
  for (const fragment of fragments) {
    if (skip >= fragment.length) {
      skip -= fragment.length;
      continue;
    }
    payload.push(skip ? fragment.subarray(skip) : fragment);
    skip = 0;
  }
  return { header, payload };
}

/** Bytes `start`..`start + count` of the fragments taken together; null when there are fewer. */
function leadingBytes(fragments: readonly Buffer[], start: number, count: number): Buffer | null {
  const parts: Buffer[] = [];
  let wanted = count;
  for (const fragment of fragments) {
    if (wanted === 0) break;
    if (start >= fragment.length) {
      start -= fragment.length;
      continue;
    }
    const part = fragment.subarray(start, start + wanted);
    parts.push(part);
    wanted -= part.length;
    start = 0;
  }
  if (wanted > 0) return null;
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** Bytes in a binary payload. */
export function payloadLength(payload: BinaryPayload): number {
  let length = 0;
  for (const chunk of payload) length += chunk.length;
  return length;
}

/**
 * What an agent sent, validated; null when malformed. Binary messages may come as one Buffer or as
 * their fragments (the relay reads them so, to keep payloads uncopied).
 */
export function parseAgentMessage(data: Buffer | readonly Buffer[], isBinary: boolean): AgentMessage | null {
  if (isBinary) {
    const fragments = Buffer.isBuffer(data) ? [data] : data;
    const headerBytes = leadingBytes(fragments, 0, 4)?.readUInt32BE(0) ?? 0;
    const frame = decodeBinaryFragments(fragments);
    if (!frame) return null;
    if (isObject(frame.header) && frame.header.type === 'video') {
      return parseVideoFrame(frame.header, headerBytes, frame.payload, payloadLength(frame.payload));
    }
    const response = parseResponse(frame.header, frame.payload);
    return response && response.ok ? response : null;
  }
  const message = parseJson(Buffer.isBuffer(data) ? data : Buffer.concat(data));
  if (!isObject(message) || typeof message.type !== 'string') return null;
  switch (message.type) {
    case 'hello':
      return { type: 'hello', agent: parseHello(message.agent) };
    case 'devices':
      return parseDevices(message.devices);
    case 'resources':
      return parseResources(message);
    case 'response':
      return parseResponse(message, null);
    case 'event':
      return parseEvent(message);
    default:
      return { type: 'unknown' };
  }
}

/** What a device-session client sent; null unless it is a well-formed request. */
export function parseClientRequest(data: Buffer, isBinary: boolean): ClientRequest | null {
  if (isBinary) return null;
  const message = parseJson(data);
  if (!isObject(message) || message.type !== 'request') return null;
  const { id, method, params } = message;
  const idOk = (typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH) || Number.isSafeInteger(id);
  if (!idOk || !isShortString(method)) return null;
  if (params !== undefined && !isObject(params)) return null;
  return { id: id as string | number, method: method as string, params: (params as Record<string, unknown>) ?? {} };
}

function parseHello(value: unknown): AgentHello {
  if (!isObject(value)) return {};
  const hello: AgentHello = {};
  for (const key of ['version', 'os', 'hostname'] as const) {
    if (isShortString(value[key])) hello[key] = value[key] as string;
  }
  if (typeof value.appium === 'boolean') hello.appium = value.appium;
  return hello;
}

function parseDevices(value: unknown): AgentMessage | null {
  if (!Array.isArray(value) || value.length > MAX_DEVICES) return null;
  const devices: DeviceInfo[] = [];
  for (const item of value) {
    if (!isObject(item)) return null;
    const { sessionId, name, platform, state, osVersion } = item;
    if (!isShortString(sessionId) || (state !== 'booted' && state !== 'shutdown')) return null;
    devices.push({
      sessionId: sessionId as string,
      name: isShortString(name) ? (name as string) : '',
      platform: isShortString(platform) ? (platform as string) : '',
      state,
      osVersion: isShortString(osVersion) ? (osVersion as string) : '',
    });
  }
  return { type: 'devices', devices };
}

function parseResources(message: Record<string, unknown>): AgentMessage | null {
  const cpu = message.cpu_percent;
  const mem = message.mem_percent;
  if (!isPercent(cpu) || !isPercent(mem)) return null;
  return { type: 'resources', cpuPercent: cpu, memPercent: mem };
}

function parseResponse(message: unknown, payload: BinaryPayload | null): ResponseFrame | null {
  if (!isObject(message) || message.type !== 'response' || !isShortString(message.id)) return null;
  const id = message.id as string;
  if (message.ok === true) return { type: 'response', id, ok: true, result: message.result ?? {}, payload };
  if (message.ok !== false || payload) return null;
  const error = isObject(message.error) ? message.error : {};
  return {
    type: 'response',
    id,
    ok: false,
    error: {
      code: typeof error.code === 'string' ? error.code : 'failed',
      message: typeof error.message === 'string' ? error.message.slice(0, 500) : '',
    },
  };
}

function parseEvent(message: Record<string, unknown>): AgentMessage | null {
  if (!isShortString(message.sessionId) || !isShortString(message.event)) return null;
  return { type: 'event', sessionId: message.sessionId as string, event: message.event as string, data: message.data ?? {} };
}

function parseJson(data: Buffer): unknown {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isShortString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH;
}

function isPercent(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100;
}
