import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackHit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * An HTTP listener on 127.0.0.1 that records what reaches it: API webhooks must never reach it;
 * svc.config.json webhooks (operator-trusted) may.
 */
export class LoopbackListener {
  readonly hits: LoopbackHit[] = [];
  private server!: Server;
  port = 0;

  static async start(): Promise<LoopbackListener> {
    const listener = new LoopbackListener();
    listener.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        listener.hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.end('loopback');
      });
    });
    await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
    listener.port = (listener.server.address() as AddressInfo).port;
    return listener;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
