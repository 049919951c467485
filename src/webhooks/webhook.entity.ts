import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/**
 * A webhook registered through the REST API. The secret is kept as written: HMAC signing needs
 * the key itself (it cannot be hashed like a PAT); it never leaves the relay except as signatures.
 */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  secret: string | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
