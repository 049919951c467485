import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildEntity } from '../builds/build.entity';
import { AppEntity } from './app.entity';
import { AppsController } from './apps.controller';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

/** Apps that builds are filed under. The builds feature resolves a build's app through AppsService. */
@Module({
  imports: [TypeOrmModule.forFeature([AppEntity, BuildEntity])],
  controllers: [AppsController],
  providers: [AppsRepository, AppsService],
  exports: [AppsService],
})
export class AppsModule {}
