import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';

/** A signed-in browser. The cookie holds a random token; only its SHA-256 is stored here. */
@Entity('sessions')
export class SessionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;

  /** How this browser signed in: the two-factor policy exempts a provider's sign-in, never a password (docs/identity.md). */
  @Column({ name: 'sign_in_method', type: 'varchar', length: 10, default: 'password' })
  signInMethod: SignInMethod;
}
