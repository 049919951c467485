import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';

/** A PAT for CI or an agent. Revoking deletes the row; only the SHA-256 of the token is stored. */
@Entity('personal_access_tokens')
export class PersonalAccessTokenEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Comma-separated scopes, as the spec shows them. */
  @Column({ type: 'varchar', length: 100 })
  scope: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'last_used_at' })
  lastUsedAt: Date;

  @TimestampColumn({ name: 'expires_at', nullable: true })
  expiresAt: Date | null;
}
