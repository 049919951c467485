import { Module } from '@nestjs/common';
import { AppCatalogueModule } from '../app-catalogue/app-catalogue.module';
import { BuildsModule } from '../builds/builds.module';
import { AppsController } from './apps.controller';
import { AppsService } from './apps.service';

/** GET/POST/PATCH/DELETE /apps: the catalogue's apps with their builds. Owns no table. */
@Module({
  imports: [AppCatalogueModule, BuildsModule],
  controllers: [AppsController],
  providers: [AppsService],
})
export class AppsModule {}
