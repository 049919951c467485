import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BuildStatusChangedEvent } from '../../builds/events/build-status-changed.event';
import { RELAY_VERSION } from '../../relay/relay-version';
import { Clock } from '../../common/clock';
import type { DestinationPolicy } from '../destination/address-classifier';
import { WEBHOOK_NOT_FOUND, WebhooksService } from '../webhooks.service';
import { ConfigFileDeliveryLog } from './config-file-delivery-log';
import { ConfigFileEndpoint, ConfigFileWebhooks } from './config-file-webhooks';
import { AttemptRecord, DeliveryLogRepository } from './delivery-log.repository';
import { WebhookDeliverySettings } from './delivery-settings';
import { badRequest, notFound } from '../../common/errors/http-error';
import { WebhookEntity } from '../webhook.entity';
import { PING_EVENT, pingBody } from './ping-payload';
import { signatureFor, statusChangedBody } from './status-changed-payload';
import { AttemptOutcome, WebhookSender } from './webhook-sender';
import { RelayMetrics } from '../../metrics/relay-metrics';
import { redactSecrets } from '../../logging/mask-secrets';
import { endpointCredentials } from './endpoint-credentials';

/** The longest error text logged or kept for an attempt (after redaction). */
const ERROR_TEXT_MAX = 300;

/** Where one delivery goes; `current()` is asked before every attempt (null = stop). */
interface DeliveryTarget {
  label: string;
  policy: DestinationPolicy;
  /** The API webhook's id; 0 for a svc.config.json entry (no row). */
  webhookId: number;
  /** Keeps an attempt in the target's delivery log: the database for API webhooks, memory for file entries. */
  keep(record: AttemptRecord): Promise<void> | void;
  current(): Promise<{ url: string; secret: string | null } | null>;
}

/** One event for one endpoint: the same id and the same bytes on every attempt. */
interface Delivery {
  id: string;
  event: string;
  body: Buffer;
  target: DeliveryTarget;
  /** False for a test ping: one attempt, its outcome shown to the Admin who asked. */
  retries: boolean;
}


/**
 * Sends `build.status_changed` to every enabled endpoint (API and svc.config.json), concurrently,
 * never making the PATCH wait: BuildStatusChangedListener only starts the work. A network error, timeout or 5xx
 * is retried after the delays in WebhookDeliverySettings under the same X-Svc-Delivery id; retries
 * live in memory (best-effort, spec §3 rule 4), so a restart drops pending ones.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly shutdown = new AbortController();

  constructor(
    private readonly webhooks: WebhooksService,
    private readonly configFile: ConfigFileWebhooks,
    private readonly sender: WebhookSender,
    private readonly deliveryLog: DeliveryLogRepository,
    private readonly configFileLog: ConfigFileDeliveryLog,
    private readonly settings: WebhookDeliverySettings,
    private readonly clock: Clock,
    private readonly metrics: RelayMetrics,
  ) {}

  onModuleDestroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.shutdown.abort();
  }

  /** Starts delivery of one status change to every enabled endpoint; resolves once every first attempt is under way. */
  async dispatch(event: BuildStatusChangedEvent): Promise<void> {
    await this.dispatchBody(BuildStatusChangedEvent.eventName, statusChangedBody(event));
  }

  /** The same for another event of the relay (`build.gate_changed`, beyond the spec): these bytes, signed, to every enabled endpoint. */
  async dispatchBody(eventName: string, body: Buffer): Promise<void> {
    const targets = [...(await this.apiTargets()), ...this.configTargets()];
    for (const target of targets) {
      const delivery = { id: randomUUID(), event: eventName, body, target, retries: true };
      void this.attempt(delivery, 1).catch((err) => this.logger.error(`Webhook delivery ${delivery.id} failed: ${err}`));
    }
  }

  /**
   * Sends one signed `ping` to an API webhook through the same path (destination check, headers,
   * signature, delivery log), enabled or not, so an Admin can try an endpoint before enabling it.
   * One attempt, no retries: the answer is that attempt.
   */
  async ping(webhookId: number): Promise<AttemptRecord> {
    const webhook = await this.webhooks.findOne(webhookId);
    if (!webhook) throw notFound(WEBHOOK_NOT_FOUND);
    const record = await this.sendPing(this.apiTarget(webhook, { evenIfDisabled: true }), webhook.id);
    if (!record) throw notFound(WEBHOOK_NOT_FOUND); // deleted between the lookup and the attempt
    return record;
  }

  /**
   * The same ping to a svc.config.json entry in use. One not in use is refused (400) rather than
   * tried: it is disabled, names an unset secret variable (never sent unsigned) or a refused destination.
   */
  async pingConfigEntry(index: number): Promise<AttemptRecord> {
    const entry = this.configFile.entry(index);
    if (entry.problem !== null) throw badRequest(`svc.config.json webhooks[${index}] is not used: ${entry.problem}`);
    const record = await this.sendPing(this.configTarget(entry as ConfigFileEndpoint), `config-${index}`);
    if (!record) throw new Error('the relay is stopping'); // only a shutdown stops a file entry's attempt
    return record;
  }

  private sendPing(target: DeliveryTarget, id: number | string): Promise<AttemptRecord | null> {
    const delivery = { id: randomUUID(), event: PING_EVENT, body: pingBody(id, this.clock.now()), target, retries: false };
    return this.attempt(delivery, 1);
  }

  private async apiTargets(): Promise<DeliveryTarget[]> {
    return (await this.webhooks.listEnabled()).map((hook) => this.apiTarget(hook));
  }

  private apiTarget(hook: WebhookEntity, { evenIfDisabled = false } = {}): DeliveryTarget {
    return {
      label: `webhook #${hook.id}`,
      policy: 'api',
      webhookId: hook.id,
      keep: (record) => this.deliveryLog.record(record),
      // Re-read before each attempt: a webhook deleted or disabled meanwhile is not retried; a changed secret signs the retry.
      current: async () => {
        const now = await this.webhooks.findOne(hook.id);
        return now && (now.enabled || evenIfDisabled) ? { url: now.url, secret: now.secret } : null;
      },
    };
  }

  private configTargets(): DeliveryTarget[] {
    return this.configFile.endpoints().map((endpoint) => this.configTarget(endpoint));
  }

  private configTarget(endpoint: ConfigFileEndpoint): DeliveryTarget {
    return {
      label: endpoint.label,
      policy: 'operator',
      webhookId: 0,
      keep: (record) => this.configFileLog.record(endpoint.index, record),
      current: async () => ({ url: endpoint.url, secret: endpoint.secret }),
    };
  }

  /** One attempt; resolves with what was recorded, or null when the target is gone or the relay stops. */
  private async attempt(delivery: Delivery, attempt: number): Promise<AttemptRecord | null> {
    if (this.shutdown.signal.aborted) return null;
    const destination = await delivery.target.current();
    if (!destination) {
      this.logger.log(`${delivery.target.label} delivery ${delivery.id}: stopped (webhook deleted or disabled)`);
      return null;
    }
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': `svc-relay/${RELAY_VERSION}`,
      'X-Svc-Event': delivery.event,
      'X-Svc-Delivery': delivery.id,
    };
    if (destination.secret) headers['X-Svc-Signature'] = signatureFor(destination.secret, delivery.body);
    const attemptedAt = this.clock.now();
    const sent = await this.sender.send({
      url: destination.url,
      policy: delivery.target.policy,
      headers,
      body: delivery.body,
      signal: this.shutdown.signal,
    });
    // Redacted before it is logged or kept, and before it is cut (a cut credential no longer matches).
    const outcome = { ...sent, error: sent.error === null ? null : redactSecrets(sent.error, endpointCredentials(destination)).slice(0, ERROR_TEXT_MAX) };
    const willRetry =
      delivery.retries && outcome.retryable && attempt < this.settings.maxAttempts && !this.shutdown.signal.aborted;
    this.report(delivery, attempt, outcome, willRetry);
    this.metrics.webhookAttempt(outcome.ok ? 'delivered' : willRetry ? 'retrying' : 'failed', outcome.durationMs / 1000);
    const record: AttemptRecord = {
      webhookId: delivery.target.webhookId,
      deliveryId: delivery.id,
      event: delivery.event,
      attempt,
      attemptedAt,
      statusCode: outcome.statusCode,
      error: outcome.error?.slice(0, 500) ?? null,
      durationMs: outcome.durationMs,
    };
    await Promise.resolve()
      .then(() => delivery.target.keep(record))
      .catch((err) => this.logger.warn(`${delivery.target.label} delivery ${delivery.id}: not logged (${err})`));
    if (willRetry) this.retryLater(delivery, attempt);
    return record;
  }

  private retryLater(delivery: Delivery, failedAttempt: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, failedAttempt + 1).catch((err) =>
        this.logger.error(`Webhook delivery ${delivery.id} failed: ${err}`),
      );
    }, this.settings.delayAfter(failedAttempt));
    timer.unref();
    this.timers.add(timer);
  }

  /** The relay log line of every attempt (what the delivery log holds, plus config-file endpoints). */
  private report(delivery: Delivery, attempt: number, outcome: AttemptOutcome, willRetry: boolean): void {
    const result = outcome.ok ? `HTTP ${outcome.statusCode}` : outcome.error;
    const next = willRetry ? '; will retry' : '';
    const line = `${delivery.target.label} delivery ${delivery.id} attempt ${attempt}/${this.settings.maxAttempts}: ${result} in ${outcome.durationMs} ms${next}`;
    if (outcome.ok) this.logger.log(line);
    else this.logger.warn(line);
  }
}
