import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';
import { UserEntity } from '../users/user.entity';
import type { BuildStatus } from './build-status';

/** One entry of a build's status history (the first: its status at upload, from null). */
@Entity('build_status_changes')
export class BuildStatusChangeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'build_id', type: 'integer' })
  buildId: number;

  @Column({ name: 'from_status', type: 'varchar', length: 20, nullable: true })
  fromStatus: BuildStatus | null;

  @Column({ name: 'to_status', type: 'varchar', length: 20, nullable: true })
  toStatus: BuildStatus | null;

  @Column({ name: 'changed_by_id', type: 'integer', nullable: true })
  changedById: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'changed_by_id' })
  changedBy?: UserEntity | null;

  /** The member's display name at the time, as stored (null when they had none). */
  @Column({ name: 'changed_by_display_name', type: 'varchar', length: 200, nullable: true })
  changedByDisplayName: string | null;

  @Column({ name: 'changed_by_email', type: 'varchar', length: 320 })
  changedByEmail: string;

  @TimestampColumn({ name: 'changed_at' })
  changedAt: Date;
}
