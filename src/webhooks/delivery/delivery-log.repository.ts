import { Injectable } from '@nestjs/common';
import { QueryBuilder } from '../../database/query-builder/query-builder';
import { insertReturningId } from '../../database/query-builder/rows';
import { TransactionRunner } from '../../database/transaction-runner';
import { WebhookDeliveryEntity } from '../webhook-delivery.entity';
import { SqlExecutor } from '../../database/sql-executor';

/** Attempts kept per webhook; older ones are dropped as new ones arrive. */
export const DELIVERY_LOG_SIZE = 50;

/** One attempt as the log records it (what the dispatcher knows; the row id comes on insert). */
export type AttemptRecord = Omit<WebhookDeliveryEntity, 'id' | 'webhook'>;

interface DeliveryRow {
  id: number | string;
  webhook_id: number | string;
  delivery_id: string;
  event: string;
  attempt: number | string;
  attempted_at: number | string;
  status_code: number | string | null;
  error: string | null;
  duration_ms: number | string;
}

/** The per-webhook delivery log behind GET /webhooks/:id/deliveries (table webhook_deliveries). */
@Injectable()
export class DeliveryLogRepository {
  private readonly sql: QueryBuilder;

  constructor(
    private readonly db: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.sql = QueryBuilder.for(db.dialect);
  }

  /** Records one attempt and trims the webhook's log to the newest DELIVERY_LOG_SIZE. */
  async record(entry: AttemptRecord): Promise<void> {
    await this.transactions.run(async (tx) => {
      await insertReturningId(tx, 'webhook_deliveries', {
        webhook_id: entry.webhookId,
        delivery_id: entry.deliveryId,
        event: entry.event,
        attempt: entry.attempt,
        attempted_at: entry.attemptedAt.getTime(),
        status_code: entry.statusCode,
        error: entry.error,
        duration_ms: entry.durationMs,
      });
      const trim = this.sql.prepare('webhookDeliveries.trim', (v: { webhookId: number; keep: number }) =>
        this.sql.db
          .deleteFrom('webhook_deliveries')
          .where('webhook_id', '=', v.webhookId)
          .where('id', 'not in', this.newestFirst(v.webhookId).select('id').limit(v.keep)),
      );
      await trim.run(tx, { webhookId: entry.webhookId, keep: DELIVERY_LOG_SIZE });
    });
  }

  async latest(webhookId: number): Promise<WebhookDeliveryEntity[]> {
    const statement = this.sql.prepare('webhookDeliveries.latest', (v: { webhookId: number; limit: number }) =>
      this.newestFirst(v.webhookId)
        .select(['id', 'webhook_id', 'delivery_id', 'event', 'attempt', 'attempted_at', 'status_code', 'error', 'duration_ms'])
        .limit(v.limit),
    );
    const rows = await statement.run<DeliveryRow>(this.db, { webhookId, limit: DELIVERY_LOG_SIZE });
    return rows.map((row) =>
      Object.assign(new WebhookDeliveryEntity(), {
        id: Number(row.id),
        webhookId: Number(row.webhook_id),
        deliveryId: row.delivery_id,
        event: row.event,
        attempt: Number(row.attempt),
        attemptedAt: new Date(Number(row.attempted_at)),
        statusCode: row.status_code === null ? null : Number(row.status_code),
        error: row.error,
        durationMs: Number(row.duration_ms),
      }),
    );
  }

  /**
   * A webhook's attempts, newest first. By attempt time, not by id: attempts finish (and are
   * inserted) in any order, and on PostgreSQL concurrent inserts take ids in no particular order either.
   */
  private newestFirst(webhookId: number) {
    return this.sql.db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId).orderBy('attempted_at', 'desc').orderBy('id', 'desc');
  }
}
