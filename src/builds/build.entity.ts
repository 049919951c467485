import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AppEntity } from '../app-catalogue/app.entity';
import { TimestampColumn } from '../database/timestamp.column';
import type { BuildStatus } from './build-status';
import type { Platform } from '../app-catalogue/platform';

const bigintNumber = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};

/** One uploaded build; its file lives at `<data>/builds/<file_name>` (a generated name). */
@Entity('builds')
export class BuildEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'app_id', type: 'integer' })
  appId: number;

  @ManyToOne(() => AppEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id' })
  app?: AppEntity;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'version_name', type: 'varchar', length: 200, nullable: true })
  versionName: string | null;

  @Column({ name: 'build_number', type: 'varchar', length: 200, nullable: true })
  buildNumber: string | null;

  @Column({ name: 'version_label', type: 'varchar', length: 200, nullable: true })
  versionLabel: string | null;

  @Column({ name: 'status_label', type: 'varchar', length: 20, nullable: true })
  statusLabel: BuildStatus | null;

  @Column({ type: 'varchar', length: 10 })
  platform: Platform;

  @Column({ name: 'bundle_id', type: 'varchar', length: 255 })
  bundleId: string;

  /** Generated storage name under the builds folder (never the client's name). */
  @Column({ name: 'file_name', type: 'varchar', length: 100 })
  fileName: string;

  /** The client's file name (base name only), for Content-Disposition on download. */
  @Column({ name: 'original_name', type: 'varchar', length: 255 })
  originalName: string;

  @Column({ name: 'file_size', type: 'bigint', transformer: bigintNumber })
  fileSize: number;

  @TimestampColumn({ name: 'uploaded_at' })
  uploadedAt: Date;

  @TimestampColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @TimestampColumn({ name: 'delete_after', nullable: true })
  deleteAfter: Date | null;

  /**
   * The release gate's state (pending, passed, failed; null: none decided), kept by the release-gate
   * module through BuildGateStates so the list filters on it (`?gate=`). Never selected with the build.
   */
  @Column({ name: 'gate_state', type: 'varchar', length: 10, nullable: true, select: false })
  gateState?: BuildGateState | null;
}

/** The gate states GET /builds filters on (docs/release-gate.md). */
export const BUILD_GATE_STATES = ['pending', 'passed', 'failed'] as const;
export type BuildGateState = (typeof BUILD_GATE_STATES)[number];
