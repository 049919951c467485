import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An app's comparison thresholds and permission watch-list (absent row = the defaults); goes with its app (CASCADE). */
@Entity('app_compare_settings')
export class AppCompareSettingsEntity {
  @PrimaryColumn({ name: 'app_id', type: 'integer' })
  appId: number;

  /** CompareSettings as JSON text. */
  @Column({ type: 'text' })
  data: string;
}
