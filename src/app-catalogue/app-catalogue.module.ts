import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppCatalogue } from './app-catalogue.service';
import { AppEntity } from './app.entity';
import { AppsRepository } from './apps.repository';
import { CommonModule } from '../common/common.module';

/**
 * Owner of the apps table. Below builds (which files each new build under an app) and the apps
 * feature (GET/POST/PATCH/DELETE /apps), so neither needs the other to reach it.
 */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([AppEntity])],
  providers: [AppsRepository, AppCatalogue],
  exports: [AppCatalogue],
})
export class AppCatalogueModule {}
