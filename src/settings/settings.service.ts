import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { badRequest } from '../common/errors/relay-exception';
import { TransactionRunner } from '../database/transaction-runner';
import { ImageForm, StoredImagesService } from '../uploads/stored-images.service';
import { uploadUrl } from '../users/users.mapper';
import { TeamSettingsEntity } from './team-settings.entity';

const SETTINGS_ID = 1;
export const TEAM_NAME_MAX = 200;

/** spec §2 "Team settings". */
export class TeamSettings {
  @ApiProperty()
  team_name: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when there is no logo' })
  logo_url: string | null;
}

@Injectable()
export class SettingsService {
  constructor(
    @InjectRepository(TeamSettingsEntity) private readonly settings: Repository<TeamSettingsEntity>,
    private readonly images: StoredImagesService,
    private readonly transactions: TransactionRunner,
  ) {}

  async read(): Promise<TeamSettings> {
    const row = await this.row();
    return { team_name: row.teamName, logo_url: uploadUrl(row.logoPath) };
  }

  async teamName(): Promise<string> {
    return (await this.row()).teamName;
  }

  async logoPath(): Promise<string | null> {
    return (await this.row()).logoPath;
  }

  /** PATCH /settings (multipart `team_name`, file `logo`); a new logo replaces and deletes the old file. */
  async update(form: ImageForm): Promise<void> {
    try {
      const name = form.fields.team_name;
      const logo = form.image('logo');
      if (name === undefined && !logo) throw badRequest('Nothing to update: send team_name or logo');
      const changes: Partial<TeamSettingsEntity> = {};
      if (name !== undefined) {
        const teamName = name.trim();
        if (!teamName) throw badRequest('team_name must not be empty');
        if (teamName.length > TEAM_NAME_MAX) throw badRequest(`team_name must be at most ${TEAM_NAME_MAX} characters`);
        changes.teamName = teamName;
      }
      if (logo) changes.logoPath = await this.images.keep(logo);
      let previousLogo: string | null;
      try {
        // Read and replace in one transaction, so two logos sent at once each delete the other's file.
        previousLogo = await this.transactions.run(async (manager) => {
          const before = await manager.getRepository(TeamSettingsEntity).findOneBy({ id: SETTINGS_ID });
          await manager.getRepository(TeamSettingsEntity).update({ id: SETTINGS_ID }, changes);
          return before?.logoPath ?? null;
        });
      } catch (err) {
        await this.images.remove(changes.logoPath);
        throw err;
      }
      if (logo) await this.images.remove(previousLogo);
    } finally {
      await form.discard();
    }
  }

  private async row(): Promise<TeamSettingsEntity> {
    const row = await this.settings.findOneBy({ id: SETTINGS_ID });
    // The migration creates the row; should it ever be missing, fall back to the default.
    return row ?? Object.assign(new TeamSettingsEntity(), { id: SETTINGS_ID, teamName: 'My team', logoPath: null });
  }
}
