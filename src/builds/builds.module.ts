import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '../apps/apps.module';
import { BuildDownloadService } from './build-download.service';
import { BuildEntity } from './build.entity';
import { BuildIntakeService } from './build-intake.service';
import { BuildQueryService } from './build-query.service';
import { BuildRetentionService } from './build-retention.service';
import { BuildReviewService } from './build-review.service';
import { BuildsController } from './builds.controller';
import { BuildsRepository } from './builds.repository';

/** Builds: upload and metadata, listing, review status, deletion schedule, purge, download. */
@Module({
  imports: [TypeOrmModule.forFeature([BuildEntity]), AppsModule],
  controllers: [BuildsController],
  providers: [
    BuildsRepository,
    BuildIntakeService,
    BuildQueryService,
    BuildReviewService,
    BuildRetentionService,
    BuildDownloadService,
  ],
  exports: [BuildQueryService, BuildRetentionService],
})
export class BuildsModule {}
