import { createServer, connect, Server, Socket } from 'node:net';

/** Bytes the bucket may hold: a burst of about 16 ms at 1 Mbit/s, so the rate holds over any 100 ms. */
const BUCKET_BYTES = 2048;
const TICK_MS = 5;

/**
 * A loopback TCP proxy for one viewer's link (bench/video.ts): requests pass untouched; what the
 * server sends back passes through a token bucket of `bitsPerSecond` (null: unlimited). While the
 * bucket is empty the proxy stops reading the server's socket, so the server sees a slow reader
 * exactly as it would a slow network: its writes back up in the kernel, then in its own buffers.
 */
export class ThrottleProxy {
  private server: Server | null = null;
  private bitsPerSecond: number | null = null;
  private readonly links = new Set<() => void>();
  port = 0;

  async start(target: number): Promise<this> {
    this.server = createServer((client) => this.link(client, connect(target, '127.0.0.1')));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** A new rate for every link; null lifts the limit (the link recovers). */
  throttle(bitsPerSecond: number | null): void {
    this.bitsPerSecond = bitsPerSecond;
    for (const wake of this.links) wake();
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private link(client: Socket, upstream: Socket): void {
    client.pipe(upstream);
    const queue: Buffer[] = [];
    let tokens = BUCKET_BYTES;
    let last = performance.now();
    let timer: NodeJS.Timeout | null = null;
    const pump = () => {
      timer = null;
      const now = performance.now();
      if (this.bitsPerSecond !== null) tokens = Math.min(BUCKET_BYTES, tokens + ((now - last) / 1000) * (this.bitsPerSecond / 8));
      last = now;
      while (queue.length && !client.destroyed) {
        if (this.bitsPerSecond === null) {
          client.write(queue.shift()!);
          continue;
        }
        if (tokens < 1) break;
        const chunk = queue[0];
        const take = Math.min(chunk.length, Math.floor(tokens));
        client.write(chunk.subarray(0, take));
        tokens -= take;
        if (take === chunk.length) queue.shift();
        else queue[0] = chunk.subarray(take);
      }
      // Read more only when what was read went out, and the client keeps up (its own back-pressure).
      if (queue.length) timer = setTimeout(pump, TICK_MS);
      else if (client.writableNeedDrain) client.once('drain', () => upstream.resume());
      else upstream.resume();
    };
    const wake = () => {
      if (timer) clearTimeout(timer);
      pump();
    };
    this.links.add(wake);
    upstream.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      upstream.pause();
      if (!timer) pump();
    });
    const close = () => {
      this.links.delete(wake);
      if (timer) clearTimeout(timer);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
