import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/timestamp.column';

export const APP_PLATFORMS = ['ios', 'android', 'both'] as const;
export type AppPlatform = (typeof APP_PLATFORMS)[number];

/** An app that builds are filed under; resolved from a build's bundle id (bundle_id_key) and platform, one app per pair. */
@Entity('apps')
@Index('UQ_apps_platform_bundle_id_key', ['platform', 'bundleIdKey'], { unique: true })
export class AppEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'bundle_id_key', type: 'varchar', length: 255 })
  bundleIdKey: string;

  @Column({ type: 'varchar', length: 10 })
  platform: AppPlatform;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
