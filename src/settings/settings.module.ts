import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ImagesModule } from '../images/images.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';
import { TeamSettingsEntity } from './team-settings.entity';

/** The team's name and logo. */
@Module({
  imports: [TypeOrmModule.forFeature([TeamSettingsEntity]), ImagesModule],
  controllers: [SettingsController],
  providers: [SettingsService],
  exports: [SettingsService],
})
export class SettingsModule {}
