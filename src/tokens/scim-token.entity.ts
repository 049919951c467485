import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/**
 * A bearer token an identity provider uses for SCIM provisioning (/scim/v2). Not a member's: it
 * outlives the Admin who created it (`created_by_id` SET NULL). Only the SHA-256 is stored.
 */
@Entity('scim_tokens')
export class ScimTokenEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'created_by_id', type: 'integer', nullable: true })
  createdById: number | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;
}
