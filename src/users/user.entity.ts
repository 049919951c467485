import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '../common/auth/role';
import { TimestampColumn } from '../database/timestamp.column';

/** A member of the team. `email` is stored trimmed and lower-cased, which is how sign-in matches it. */
@Entity('users')
export class UserEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 320, unique: true })
  email: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 100 })
  passwordHash: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200, nullable: true })
  displayName: string | null;

  @Column({ type: 'varchar', length: 20 })
  role: Role;

  /** Path under the uploads folder (e.g. `avatars/<file>`), or null. */
  @Column({ name: 'avatar_path', type: 'varchar', length: 300, nullable: true })
  avatarPath: string | null;

  /** May still sign in with a password under `sso.only` (docs/identity.md); the first Admin is one. */
  @Column({ name: 'break_glass', type: 'boolean', default: false })
  breakGlass: boolean;

  /** False once deprovisioned through SCIM: the row and its contributions stay, signing in does not. */
  @Column({ type: 'boolean', default: true })
  active: boolean;

  /** The identity provider's id for this member (SCIM `externalId`), or null. */
  @Column({ name: 'scim_external_id', type: 'varchar', length: 300, nullable: true })
  scimExternalId: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
