import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RelayConfig } from '../config/relay-config';
import { RelayMetrics } from './relay-metrics';

/**
 * /metrics on a port of its own (SVC_METRICS_PORT), so the scrape target can stay on a private
 * interface while the relay faces the internet. Serves GET /metrics only; everything else 404.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly config: RelayConfig,
    private readonly metrics: RelayMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { enabled, port, host } = this.config.metrics;
    if (!enabled || port === null) return;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
        return;
      }
      this.metrics.exposition().then(
        ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body),
        (err: Error) => {
          this.logger.error(`Collecting metrics failed: ${err.message}`, err.stack);
          res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Internal server error' }));
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on http://${host}:${this.port()}/metrics`);
  }

  /** The port it listens on (the real one when configured as 0), or null when not running. */
  port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
