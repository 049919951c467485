import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/** A share link of one build (migration BuildShareLinks). Only the SHA-256 of its token is stored. */
@Entity('build_share_links')
export class ShareLinkEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** NULL once the build was deleted or purged: the link then answers 410. */
  @Column({ name: 'build_id', type: 'integer', nullable: true })
  buildId: number | null;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'created_by_id', type: 'integer', nullable: true })
  createdById: number | null;

  /** The creator's shown name when the link was made (kept after their account is removed). */
  @Column({ name: 'created_by_name', type: 'varchar', length: 320 })
  createdByName: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;

  @TimestampColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'integer', default: 0 })
  downloads: number;
}
