import { randomUUID } from 'node:crypto';
import WebSocket, { RawData } from 'ws';
import { DEVICE_SESSION_CONNECT_PATH, decodeBinaryFrame } from '../agents/protocol/agent-protocol';
import { MCP_USER_AGENT } from '../common/auth/principal';
import { RelayRefusedError } from '../relay-client/client-errors';
import type { Connection } from '../relay-client/relay-client';

/** What a device answered: its JSON result, or an error with the agent's code and message. */
export type DeviceAnswer = { ok: true; result: unknown } | { ok: false; code: string; message: string };

/** The relay's own limit on client frames is 1 MiB; answers (a screenshot) may be larger. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * One request over a device-session socket (agent-protocol §3): opens the socket with the PAT, sends
 * the request, waits for the response under its id, closes. A refused upgrade becomes a
 * RelayRefusedError with the relay's status and message, as a REST refusal would.
 */
export function deviceRequest(
  connection: Connection,
  sessionId: string,
  method: string,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<DeviceAnswer> {
  const path = DEVICE_SESSION_CONNECT_PATH.replace(':sessionId', encodeURIComponent(sessionId));
  const url = `${connection.baseUrl.replace(/^http/i, 'ws')}${path}`;
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      headers: { Authorization: `Bearer ${connection.token}`, 'User-Agent': MCP_USER_AGENT },
      maxPayload: MAX_ANSWER_BYTES,
      perMessageDeflate: false,
      handshakeTimeout: 15_000,
      ...(connection.loopbackTls ? { rejectUnauthorized: false } : {}),
    });
    let settled = false;
    const finish = (error: Error | null, answer?: DeviceAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
      else socket.terminate();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(
      () => finish(new RelayRefusedError(504, `The device did not answer ${method} within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => finish(new RelayRefusedError(res.statusCode ?? 502, relayMessage(body, res.statusCode))));
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'request', id, method, params })));
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const frame = (isBinary ? decodeBinaryFrame(data as Buffer)?.header : parse(data.toString())) as
        | { type?: string; id?: unknown; ok?: boolean; result?: unknown; error?: { code?: string; message?: string } }
        | undefined;
      if (frame?.type !== 'response' || frame.id !== id) return; // events about the session, not our answer
      if (frame.ok) return finish(null, { ok: true, result: frame.result ?? {} });
      finish(null, { ok: false, code: frame.error?.code ?? 'failed', message: frame.error?.message ?? 'The device refused' });
    });
    socket.on('close', (code: number) => {
      if (code === 4502) finish(new RelayRefusedError(502, 'Agent offline'));
      else finish(new RelayRefusedError(502, `The device session closed (${code}) before answering`));
    });
    socket.on('error', (err) => finish(new RelayRefusedError(502, `Cannot reach the relay: ${err.message}`)));
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function relayMessage(body: string, status: number | undefined): string {
  const parsed = parse(body) as { error?: unknown } | undefined;
  return typeof parsed?.error === 'string' ? parsed.error : `HTTP ${status ?? 502}`;
}
