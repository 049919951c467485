import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** A gauge's current values, read when Prometheus scrapes (never stored in between). */
export type GaugeReading = { labels?: Record<string, string>; value: number }[] | number;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const UPLOAD_SECONDS_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800];
const UPLOAD_BYTES_BUCKETS = [1e5, 1e6, 1e7, 5e7, 1e8, 2.5e8, 5e8, 1e9];

/**
 * The relay's Prometheus series in a registry of its own (tests run several relays in one process),
 * built only while /metrics is exposed (RelayMetrics): loading this file loads prom-client.
 * Names follow Prometheus conventions: `svc_` prefix, base units (seconds, bytes), `_total` counters.
 */
export class PrometheusSeries {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly uploadBytes = new Histogram({
    name: 'svc_build_upload_bytes',
    help: 'Size of build uploads received, by outcome (stored, refused)',
    labelNames: ['outcome'],
    buckets: UPLOAD_BYTES_BUCKETS,
    registers: [this.registry],
  });
  private readonly uploadDuration = new Histogram({
    name: 'svc_build_upload_duration_seconds',
    help: 'Time from the first byte of a build upload to its answer, by outcome (stored, refused)',
    labelNames: ['outcome'],
    buckets: UPLOAD_SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'svc_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retrying, failed)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly webhookDuration = new Histogram({
    name: 'svc_webhook_delivery_duration_seconds',
    help: 'Time of one webhook delivery attempt, by outcome',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly agentRequests = new Histogram({
    name: 'svc_agent_request_duration_seconds',
    help: 'Time for an agent to answer a request, by method and outcome (ok, error, offline, timeout)',
    labelNames: ['method', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly maintenanceRuns = new Counter({
    name: 'svc_maintenance_runs_total',
    help: 'Scheduled purges and sweeps run, by job and outcome (ok, failed)',
    labelNames: ['job', 'outcome'],
    registers: [this.registry],
  });

  constructor() {
    // Process metrics (CPU, memory, event loop lag, handles, GC) under their standard names, so
    // stock Node.js dashboards work.
    collectDefaultMetrics({ register: this.registry });
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  buildUpload(outcome: 'stored' | 'refused', bytes: number, seconds: number): void {
    this.uploadBytes.observe({ outcome }, bytes);
    this.uploadDuration.observe({ outcome }, seconds);
  }

  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', seconds: number): void {
    this.webhookDeliveries.inc({ outcome });
    this.webhookDuration.observe({ outcome }, seconds);
  }

  agentRequest(method: string, outcome: string, seconds: number): void {
    this.agentRequests.observe({ method, outcome }, seconds);
  }

  maintenanceRun(job: string, outcome: 'ok' | 'failed'): void {
    this.maintenanceRuns.inc({ job, outcome });
  }

  /** A gauge whose values are read at scrape time. */
  gauge(name: string, help: string, labelNames: string[], read: () => GaugeReading | Promise<GaugeReading>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const reading = await read();
        this.reset();
        if (typeof reading === 'number') this.set(reading);
        else for (const { labels, value } of reading) this.set(labels ?? {}, value);
      },
    });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
