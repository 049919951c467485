import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { badRequest, notFound } from '../common/errors/http-error';
import { DeliveryLogRepository } from './delivery/delivery-log.repository';
import { DestinationGuard, DestinationRefused } from './destination/destination-guard';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { WebhooksChangedEvent } from './events/webhooks-changed.event';
import { WebhooksRepository } from './webhooks.repository';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';

/** Webhooks registered through the API (team-wide, like the spec's list): CRUD and the delivery log. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly guard: DestinationGuard,
    private readonly deliveryLog: DeliveryLogRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  list(): Promise<WebhookEntity[]> {
    return this.webhooks.list();
  }

  /** Enabled webhooks at the time of each event (kept until a change; shared: not to be changed). */
  listEnabled(): Promise<readonly WebhookEntity[]> {
    return this.webhooks.listEnabled();
  }

  countEnabled(): Promise<number> {
    return this.webhooks.countEnabled();
  }

  findOne(id: number): Promise<WebhookEntity | null> {
    return this.webhooks.findOne(id);
  }

  async create(actor: Principal, dto: CreateWebhookDto): Promise<WebhookEntity> {
    await this.checkDestination(dto.url);
    const webhook = await this.webhooks.create({
      url: dto.url,
      secret: dto.secret ?? null,
      enabled: dto.enabled ?? true,
      createdAt: this.clock.now(),
    });
    this.changed();
    this.events.emit(
      AUDIT_EVENT,
      auditEvent(actorOf(actor), 'webhook.created', `webhook:${webhook.id}`, { destination: originOf(webhook.url), signed: !!webhook.secret, enabled: webhook.enabled }),
    );
    return webhook;
  }

  async update(actor: Principal, id: number, dto: UpdateWebhookDto): Promise<WebhookEntity> {
    const changes: Partial<Pick<WebhookEntity, 'url' | 'secret' | 'enabled'>> = {};
    if (dto.url !== undefined) changes.url = dto.url;
    if (dto.secret !== undefined) changes.secret = dto.secret;
    if (dto.enabled !== undefined) changes.enabled = dto.enabled;
    if (!Object.keys(changes).length) throw badRequest('Nothing to update: send url, secret or enabled');
    const webhook = await this.require(id);
    if (changes.url !== undefined) await this.checkDestination(changes.url);
    await this.webhooks.update(id, changes);
    this.changed();
    // Which fields changed and where to; a secret is only said to be set or removed.
    const details: Record<string, string | boolean | null> = { fields: Object.keys(changes).sort().join(',') };
    if (changes.url !== undefined) details.destination = originOf(changes.url);
    if (changes.enabled !== undefined) details.enabled = changes.enabled;
    if (changes.secret !== undefined) details.signed = changes.secret !== null;
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'webhook.updated', `webhook:${id}`, details));
    return { ...webhook, ...changes };
  }

  async remove(actor: Principal, id: number): Promise<void> {
    const webhook = await this.findOne(id);
    if (!(await this.webhooks.delete(id))) throw notFound(WEBHOOK_NOT_FOUND);
    this.changed();
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'webhook.deleted', `webhook:${id}`, { destination: webhook ? originOf(webhook.url) : null }));
  }

  async deliveries(id: number): Promise<WebhookDeliveryEntity[]> {
    await this.require(id);
    return this.deliveryLog.latest(id);
  }

  /** The other instances' kept list of enabled webhooks is stale now (this one's repository cleared its own). */
  private changed(): void {
    this.events.emit(WebhooksChangedEvent.eventName, new WebhooksChangedEvent());
  }

  private async require(id: number): Promise<WebhookEntity> {
    const webhook = await this.findOne(id);
    if (!webhook) throw notFound(WEBHOOK_NOT_FOUND);
    return webhook;
  }

  /** The SSRF rule at registration: the same check deliveries run again on every attempt. */
  private async checkDestination(url: string): Promise<void> {
    try {
      await this.guard.vet(url, 'api');
    } catch (err) {
      if (err instanceof DestinationRefused) throw badRequest(`Webhook URL refused: ${err.reason}`);
      throw err;
    }
  }
}

/** The audit log names a destination by origin only: paths of chat webhooks (Slack, Teams) are credentials. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}
