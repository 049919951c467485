import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The team's name and logo: a single row (id 1), created by the Team migration. */
@Entity('team_settings')
export class TeamSettingsEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'team_name', type: 'varchar', length: 200 })
  teamName: string;

  /** Path under the uploads folder (`logos/<file>`), or null. */
  @Column({ name: 'logo_path', type: 'varchar', length: 300, nullable: true })
  logoPath: string | null;
}
