import { ApiProperty } from '@nestjs/swagger';
import { uploadUrl } from '../users/users.mapper';
import type { TeamSettingsEntity } from './team-settings.entity';

/** spec §2 "Team settings". */
export class TeamSettings {
  @ApiProperty()
  team_name: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when there is no logo' })
  logo_url: string | null;
}

export function toTeamSettings(row: TeamSettingsEntity): TeamSettings {
  return { team_name: row.teamName, logo_url: uploadUrl(row.logoPath) };
}

/** GET /settings/brand (beyond the spec): what the sign-in page shows before anyone is signed in. */
export class TeamBrand {
  @ApiProperty()
  team_name: string;
  @ApiProperty({ type: String, nullable: true, description: 'the logo inlined as a data: URL (files under /uploads need a sign-in); null when there is none' })
  logo_data_url: string | null;
}
