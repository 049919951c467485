import { createServer, Server, Socket, connect } from 'node:net';

export interface CuttingProxy {
  /** http://127.0.0.1:<port>: point the client here instead of at the relay. */
  url: string;
  /** Whether the cut happened (the client sent more than `cutAfterBytes` through the proxy). */
  cut(): boolean;
  /** The Upload-Offset of every tus PATCH that went through, in order (0 first, then where it resumed). */
  patchOffsets(): number[];
  /** How many tus creations (POST) went through. */
  creations(): number;
  /** Called once, right after the cut. */
  onCut: (() => void) | null;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a relay that drops the connection once, mid-upload: when the
 * bytes sent by the client (over all its connections) pass `cutAfterBytes`, both sides of that
 * connection are destroyed, as a flaky link would. Later connections pass untouched, so a client
 * that resumes can finish.
 */
export async function startCuttingProxy(targetPort: number, cutAfterBytes: number): Promise<CuttingProxy> {
  let sent = 0;
  let didCut = false;
  const offsets: number[] = [];
  let posts = 0;
  const proxy = { onCut: null as (() => void) | null };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    // Once this connection is cut nothing more may pass: the tail of the cut chunk is dropped, so a
    // later chunk forwarded before the sockets close would reach the relay as bytes out of place.
    let severed = false;
    client.on('data', (chunk: Buffer) => {
      if (severed) return;
      // Request heads are ASCII and arrive at the start of a write: enough to see each PATCH's offset.
      const head = chunk.subarray(0, 4096).toString('latin1');
      const patch = /^PATCH [^\r]*\r\n(?:[^\r]*\r\n)*?upload-offset: *(\d+)\r\n/im.exec(head);
      if (patch) offsets.push(Number(patch[1]));
      if (/^POST [^\r]*\/uploads\/builds /.test(head)) posts++;
      sent += chunk.length;
      if (!didCut && sent > cutAfterBytes) {
        didCut = true;
        severed = true;
        client.pause();
        const keep = chunk.length - (sent - cutAfterBytes);
        upstream.write(chunk.subarray(0, keep), () => {
          client.destroy();
          upstream.destroy();
          proxy.onCut?.();
        });
        return;
      }
      if (!upstream.destroyed) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!client.destroyed) client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    cut: () => didCut,
    patchOffsets: () => [...offsets],
    creations: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
