import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UploadsModule } from '../uploads/uploads.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';
import { TeamSettingsEntity } from './team-settings.entity';

/** The team's name and logo. */
@Module({
  imports: [TypeOrmModule.forFeature([TeamSettingsEntity]), UploadsModule],
  controllers: [SettingsController],
  providers: [SettingsService],
  exports: [SettingsService],
})
export class SettingsModule {}
