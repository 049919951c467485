import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/**
 * A share link of one build (migrations BuildShareLinks, ShareLinkResend). Looked up by the SHA-256
 * of its token; the token itself only sealed with SVC_SECRETS_KEY, so writers can copy it again.
 */
@Entity('build_share_links')
export class ShareLinkEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** NULL once the build was deleted or purged: the link then answers 410. */
  @Column({ name: 'build_id', type: 'integer', nullable: true })
  buildId: number | null;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  /** SecretBox-sealed token; NULL for links made before ShareLinkResend or without SVC_SECRETS_KEY (shown once). */
  @Column({ name: 'token_sealed', type: 'varchar', length: 255, nullable: true })
  tokenSealed: string | null;

  /** bcrypt (PasswordHasher) of the link's password; NULL when the link has none. */
  @Column({ name: 'password_hash', type: 'varchar', length: 100, nullable: true })
  passwordHash: string | null;

  /** Downloads allowed from the first byte; NULL for no limit. */
  @Column({ name: 'download_limit', type: 'integer', nullable: true })
  downloadLimit: number | null;

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
