import { Injectable } from '@nestjs/common';
import { RelayConfig } from '../config/relay-config';
import type { GaugeReading, PrometheusSeries } from './prometheus-series';

export type { GaugeReading } from './prometheus-series';

/**
 * Every Prometheus metric of one relay. Features record through the intent-named methods; gauges
 * that describe current state (builds by status, connected agents) register a reader that runs at
 * scrape time. Only while SVC_METRICS exposes them: otherwise nothing would ever read them, so
 * nothing is recorded and prom-client (with @opentelemetry/api, ~80 modules) is never loaded
 * (issue 42: start-up, and a histogram per request; docs/metrics.md).
 */
@Injectable()
export class RelayMetrics {
  private readonly series: PrometheusSeries | null;

  constructor(config: RelayConfig) {
    this.series = config.metrics.enabled ? new (require('./prometheus-series') as typeof import('./prometheus-series')).PrometheusSeries() : null;
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.series?.httpRequest(route, method, status, seconds);
  }

  buildUpload(outcome: 'stored' | 'refused', bytes: number, seconds: number): void {
    this.series?.buildUpload(outcome, bytes, seconds);
  }

  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', seconds: number): void {
    this.series?.webhookAttempt(outcome, seconds);
  }

  agentRequest(method: string, outcome: string, seconds: number): void {
    this.series?.agentRequest(method, outcome, seconds);
  }

  maintenanceRun(job: string, outcome: 'ok' | 'failed'): void {
    this.series?.maintenanceRun(job, outcome);
  }

  /** A gauge whose values are read at scrape time. */
  gauge(name: string, help: string, labelNames: string[], read: () => GaugeReading | Promise<GaugeReading>): void {
    this.series?.gauge(name, help, labelNames, read);
  }

  /** The exposition text and its content type; only asked for while /metrics is exposed. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    if (!this.series) throw new Error('Prometheus metrics are not enabled (SVC_METRICS)');
    return this.series.exposition();
  }
}
