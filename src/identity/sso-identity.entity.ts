import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';

/** `scim`: the member was created by the identity provider through SCIM (subject: its SCIM id). */
export type SsoProvider = 'oidc' | 'ldap' | 'scim';

/** Who a member is at an identity provider: OIDC `iss sub`, or an LDAP entry's DN. A member has at most one per provider. */
@Entity('sso_identities')
@Index(['provider', 'subject'], { unique: true })
@Index('UQ_sso_identities_user_provider', ['userId', 'provider'], { unique: true })
export class SsoIdentityEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 10 })
  provider: SsoProvider;

  @Column({ type: 'varchar', length: 600 })
  subject: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
