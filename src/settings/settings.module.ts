import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ImagesModule } from '../images/images.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';
import { TeamSettingsEntity } from './team-settings.entity';
import { TeamSettingsRepository } from './team-settings.repository';

/** The team's name and logo. */
@Module({
  imports: [TypeOrmModule.forFeature([TeamSettingsEntity]), ImagesModule],
  controllers: [SettingsController],
  providers: [SettingsService, TeamSettingsRepository],
  exports: [SettingsService],
})
export class SettingsModule {}
