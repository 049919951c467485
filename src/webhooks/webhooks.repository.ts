import { Injectable } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { ReadCache } from '../common/read-cache';
import { QueryBuilder } from '../database/query-builder/query-builder';
import { booleanValue, deleteById, insertReturningId, updateById } from '../database/query-builder/rows';
import { WebhookEntity } from './webhook.entity';
import { SqlExecutor } from '../database/sql-executor';
import { WebhooksChangedEvent } from './events/webhooks-changed.event';

interface WebhookRow {
  id: number | string;
  url: string;
  secret: string | null;
  enabled: boolean | number;
  created_at: number | string;
}

const COLUMNS = ['id', 'url', 'secret', 'enabled', 'created_at'] as const;

/** The webhooks table (the API's webhooks; the delivery log is DeliveryLogRepository's). */
@Injectable()
export class WebhooksRepository {
  private readonly sql: QueryBuilder;
  /**
   * Read after every status change (who to notify, and how many for X-Webhooks-Notified), changed by
   * an Admin now and then: two statements a verdict on PostgreSQL before it was kept (issue 42).
   */
  private readonly enabled = new ReadCache(() => this.readEnabled());

  constructor(private readonly db: SqlExecutor) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  async list(): Promise<WebhookEntity[]> {
    const statement = this.sql.prepare('webhooks.list', () => this.sql.db.selectFrom('webhooks').select(COLUMNS).orderBy('id'));
    return (await statement.run<WebhookRow>(this.db, {})).map(toWebhook);
  }

  /** The enabled webhooks (shared: not to be changed). */
  listEnabled(): Promise<readonly WebhookEntity[]> {
    return this.enabled.get();
  }

  async countEnabled(): Promise<number> {
    return (await this.enabled.get()).length;
  }

  @OnEventOnEveryInstance(WebhooksChangedEvent.eventName)
  changed(): void {
    this.enabled.clear();
  }

  private async readEnabled(): Promise<WebhookEntity[]> {
    const statement = this.sql.prepare('webhooks.enabled', (v: { enabled: boolean | number }) =>
      this.sql.db.selectFrom('webhooks').select(COLUMNS).where('enabled', '=', v.enabled).orderBy('id'),
    );
    return (await statement.run<WebhookRow>(this.db, { enabled: booleanValue(this.db, true) })).map(toWebhook);
  }

  async findOne(id: number): Promise<WebhookEntity | null> {
    const statement = this.sql.prepare('webhooks.byId', (v: { id: number }) => this.sql.db.selectFrom('webhooks').select(COLUMNS).where('id', '=', v.id));
    const [row] = await statement.run<WebhookRow>(this.db, { id });
    return row ? toWebhook(row) : null;
  }

  async create(webhook: Omit<WebhookEntity, 'id'>): Promise<WebhookEntity> {
    const on = this.db;
    const id = await insertReturningId(on, 'webhooks', {
      url: webhook.url,
      secret: webhook.secret,
      enabled: booleanValue(on, webhook.enabled),
      created_at: webhook.createdAt.getTime(),
    });
    this.enabled.clear();
    return Object.assign(new WebhookEntity(), { id, ...webhook });
  }

  async update(id: number, changes: Partial<Pick<WebhookEntity, 'url' | 'secret' | 'enabled'>>): Promise<void> {
    const on = this.db;
    await updateById(on, 'webhooks', id, {
      url: changes.url,
      secret: changes.secret,
      enabled: changes.enabled === undefined ? undefined : booleanValue(on, changes.enabled),
    });
    this.enabled.clear();
  }

  /** Its delivery log goes with it (ON DELETE CASCADE); false when there was none. */
  async delete(id: number): Promise<boolean> {
    const deleted = await deleteById(this.db, 'webhooks', id);
    this.enabled.clear();
    return deleted;
  }
}

function toWebhook(row: WebhookRow): WebhookEntity {
  return Object.assign(new WebhookEntity(), {
    id: Number(row.id),
    url: row.url,
    secret: row.secret,
    enabled: Boolean(row.enabled),
    createdAt: new Date(Number(row.created_at)),
  });
}
