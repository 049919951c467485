import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The team's name, logo and review policy: a single row (id 1), created by the Team migration. */
@Entity('team_settings')
export class TeamSettingsEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'team_name', type: 'varchar', length: 200 })
  teamName: string;

  /** Path under the uploads folder (`logos/<file>`), or null. */
  @Column({ name: 'logo_path', type: 'varchar', length: 300, nullable: true })
  logoPath: string | null;

  /** Rejecting asks for a reason: a comment by the same member shortly before (docs/builds.md "A reason for rejecting"). */
  @Column({ name: 'reject_reason_required', type: 'boolean', default: false })
  rejectReasonRequired: boolean;
}
