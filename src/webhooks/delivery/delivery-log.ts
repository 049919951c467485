import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { TransactionRunner } from '../../database/transaction-runner';
import { WebhookDeliveryEntity } from '../webhook-delivery.entity';

/** Attempts kept per webhook; older ones are dropped as new ones arrive. */
export const DELIVERY_LOG_SIZE = 50;

/**
 * Newest attempt first. By attempt time, not by id: attempts finish (and are inserted) in any
 * order, and on PostgreSQL concurrent inserts take ids in no particular order either.
 */
const NEWEST_FIRST = { attemptedAt: 'DESC', id: 'DESC' } as const;

/** One attempt as the log records it (what the dispatcher knows; the row id comes on insert). */
export type AttemptRecord = Omit<WebhookDeliveryEntity, 'id' | 'webhook'>;

/** The per-webhook delivery log behind GET /webhooks/:id/deliveries. */
@Injectable()
export class DeliveryLog {
  constructor(
    @InjectRepository(WebhookDeliveryEntity) private readonly attempts: Repository<WebhookDeliveryEntity>,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Records one attempt and trims the webhook's log to the newest DELIVERY_LOG_SIZE. */
  async record(entry: AttemptRecord): Promise<void> {
    await this.transactions.run(async (tx) => {
      const repo = tx.getRepository(WebhookDeliveryEntity);
      await repo.insert(entry);
      const stale = await repo.find({
        where: { webhookId: entry.webhookId },
        order: NEWEST_FIRST,
        skip: DELIVERY_LOG_SIZE,
        select: { id: true },
      });
      if (stale.length) await repo.delete({ id: In(stale.map((s) => s.id)) });
    });
  }

  latest(webhookId: number): Promise<WebhookDeliveryEntity[]> {
    return this.attempts.find({ where: { webhookId }, order: NEWEST_FIRST, take: DELIVERY_LOG_SIZE });
  }
}
