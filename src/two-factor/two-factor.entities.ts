import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { TimestampColumn } from '../database/timestamp.column';

/** Who must have two-factor sign-in: nobody, the Admins, or every member. */
export const TWO_FACTOR_REQUIREMENTS = ['nobody', 'admins', 'everyone'] as const;
export type TwoFactorRequirement = (typeof TWO_FACTOR_REQUIREMENTS)[number];

/**
 * A member's TOTP secret (base32). It must be readable to check codes, so it is not hashed; it never
 * leaves the relay after enrolment. Enabled once the member confirmed it with a code.
 */
@Entity('two_factor_credentials')
export class TwoFactorCredentialEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 64 })
  secret: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'enabled_at', nullable: true })
  enabledAt: Date | null;

  /** The 30-second step of the last code accepted: a code is good once (RFC 6238 §5.2). */
  @Column({ name: 'last_used_step', type: 'bigint', nullable: true, transformer: { to: (v: unknown) => v, from: (v: string | number | null) => (v == null ? null : Number(v)) } })
  lastUsedStep: number | null;
}

@Entity('two_factor_recovery_codes')
export class RecoveryCodeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @TimestampColumn({ name: 'used_at', nullable: true })
  usedAt: Date | null;
}

/** A sign-in between the password and the code: no cookie exists yet. */
@Entity('two_factor_challenges')
export class TwoFactorChallengeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** How the first step was passed (the relay's password, or the LDAP directory's): the session made after the code keeps it. */
  @Column({ name: 'sign_in_method', type: 'varchar', length: 10, default: 'password' })
  signInMethod: SignInMethod;
}

@Entity('two_factor_policy')
export class TwoFactorPolicyEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'required_for', type: 'varchar', length: 16 })
  requiredFor: TwoFactorRequirement;
}
