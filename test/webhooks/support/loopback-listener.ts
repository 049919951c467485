import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP listener on 127.0.0.1 that only counts hits: a webhook must never reach it. */
export class LoopbackListener {
  hits: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<LoopbackListener> {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('loopback');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const listener = new LoopbackListener(server, (server.address() as AddressInfo).port);
    listener.hits = hits;
    return listener;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
