import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '../common/auth/role';
import { TimestampColumn } from '../database/timestamp.column';

/** An invitation to join the team. Only the SHA-256 of its token is stored. */
@Entity('invitations')
export class InvitationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  /** Normalised e-mail, or null for an invitation created without one (the invitee gives it on accept). */
  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: 20 })
  role: Role;

  @Column({ name: 'invited_by', type: 'integer', nullable: true })
  invitedBy: number | null;

  /** The member the invitation created, once accepted. */
  @Column({ name: 'accepted_user_id', type: 'integer', nullable: true })
  acceptedUserId: number | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;

  @TimestampColumn({ name: 'accepted_at', nullable: true })
  acceptedAt: Date | null;
}
