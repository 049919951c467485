/** An agent's answer that was not ok (agent-protocol §2.4: not_found, not_booted, unsupported, failed, busy). */
export class DeviceRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DeviceRequestError';
  }
}

/**
 * One request over the device-session socket (agent-protocol §3: WS /api/v1/sessions/:id/connect,
 * the session cookie authenticates it): opens the socket, sends the request, resolves with the
 * agent's result and closes. Used for what REST does not carry (install_build, input).
 */
export function deviceRequest(sessionId: string, method: string, params: Record<string, unknown>, timeoutMs = 11 * 60_000): Promise<unknown> {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/api/v1/sessions/${encodeURIComponent(sessionId)}/connect`);
  const id = `${method}-${Date.now()}`;
  return new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new DeviceRequestError('timeout', 'The device did not answer in time.'))), timeoutMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      socket.onclose = null;
      socket.close();
      settle();
    };
    socket.onopen = () => socket.send(JSON.stringify({ type: 'request', id, method, params }));
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      const message = JSON.parse(event.data) as { type?: string; id?: string; ok?: boolean; result?: unknown; error?: { code: string; message: string } };
      if (message.type !== 'response' || message.id !== id) return; // events of the session
      finish(() => (message.ok ? resolve(message.result) : reject(new DeviceRequestError(message.error?.code ?? 'failed', message.error?.message ?? 'The agent refused.'))));
    };
    socket.onclose = (event) =>
      finish(() => reject(new DeviceRequestError('closed', event.code === 4502 ? 'The agent went offline.' : `The connection closed (${event.code}).`)));
  });
}
