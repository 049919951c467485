import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

/** A screen recording, stored under a generated name in <data>/recordings for 72 hours. */
@Entity('recordings')
export class RecordingEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100, unique: true })
  filename: string;

  @Column({ name: 'session_id', type: 'varchar', length: 200, nullable: true })
  sessionId: string | null;

  @Index('IDX_recordings_build_id')
  @Column({ name: 'build_id', type: 'integer', nullable: true })
  buildId: number | null;

  @Column({
    name: 'file_size',
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  fileSize: number;

  @Column({ type: 'varchar', length: 50 })
  mime: string;

  @Column({ name: 'uploaded_by', type: 'integer', nullable: true })
  uploadedBy: number | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @Index('IDX_recordings_expires_at')
  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;
}
