import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { WebhookEntity } from './webhook.entity';

/** One delivery attempt to an API webhook (the delivery log); the newest 50 per webhook are kept. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'webhook_id', type: 'integer' })
  webhookId: number;

  @ManyToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: WebhookEntity;

  /** The X-Svc-Delivery id; the same on every attempt of one delivery. */
  @Column({ name: 'delivery_id', type: 'varchar', length: 36 })
  deliveryId: string;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  @Column({ type: 'integer' })
  attempt: number;

  @TimestampColumn({ name: 'attempted_at' })
  attemptedAt: Date;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;
}
