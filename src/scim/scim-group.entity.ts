import { Column, Entity, JoinTable, ManyToMany, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';

/** A group an identity provider pushes through SCIM; its members' roles follow the sso role mapping. */
@Entity('scim_groups')
export class ScimGroupEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'display_name', type: 'varchar', length: 300, unique: true })
  displayName: string;

  @Column({ name: 'external_id', type: 'varchar', length: 300, nullable: true })
  externalId: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @ManyToMany(() => UserEntity)
  @JoinTable({ name: 'scim_group_members', joinColumn: { name: 'group_id' }, inverseJoinColumn: { name: 'user_id' } })
  members?: UserEntity[];
}
