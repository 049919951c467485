import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { ForgeType } from '../../config/forge-config';
import { TimestampColumn } from '../../database/timestamp.column';

/**
 * A forge an Admin added in the dashboard (migration DashboardForges). Its token, or its GitHub
 * App's private key, is kept sealed with SVC_SECRETS_KEY (common/crypto/secret-box.ts), never as written.
 */
@Entity('forges')
export class ForgeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 10 })
  type: ForgeType;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'varchar', length: 120 })
  context: string;

  @Column({ name: 'token_sealed', type: 'text', nullable: true })
  tokenSealed: string | null;

  @Column({ name: 'app_id', type: 'varchar', length: 20, nullable: true })
  appId: string | null;

  @Column({ name: 'installation_id', type: 'varchar', length: 20, nullable: true })
  installationId: string | null;

  @Column({ name: 'private_key_sealed', type: 'text', nullable: true })
  privateKeySealed: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}

/** A repository a dashboard forge serves; `repository_key` (lower-case) is unique: one forge per repository. */
@Entity('forge_repositories')
export class ForgeRepositoryEntity {
  @PrimaryColumn({ name: 'repository_key', type: 'varchar', length: 200 })
  key: string;

  @Column({ name: 'forge_id', type: 'integer' })
  forgeId: number;

  @Column({ type: 'varchar', length: 200 })
  repository: string;
}
