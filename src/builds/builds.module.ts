import { BuildDoneGuards, BuildRejectGuards } from './build-done-guards';
import { BuildGateStates } from './build-gate-states';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppCatalogueModule } from '../app-catalogue/app-catalogue.module';
import { BuildDownloadService } from './build-download.service';
import { BuildIconsService } from './build-icons.service';
import { BuildMetrics } from './build-metrics';
import { BuildEntity } from './build.entity';
import { BuildIconEntity } from './build-icon.entity';
import { BuildStatusChangeEntity } from './build-status-change.entity';
import { BuildIntakeService } from './build-intake.service';
import { BuildQueryService } from './build-query.service';
import { BuildFileSweep } from './build-file-sweep';
import { BuildRetentionService } from './build-retention.service';
import { BuildReviewService } from './build-review.service';
import { BuildsController } from './builds.controller';
import { BuildsRepository } from './builds.repository';
import { BuildContentsController } from './contents/build-contents.controller';
import { BuildContentsEntity } from './contents/build-contents.entity';
import { BuildContentsRepository } from './contents/build-contents.repository';
import { BuildContentsService } from './contents/build-contents.service';
import { AppCompareSettingsEntity } from './contents/compare-settings.entity';
import { ResumableUploadsController } from './resumable/resumable-uploads.controller';
import { ResumableUploadsService } from './resumable/resumable-uploads.service';
import { BuildFiles } from './build-files';
import { MetricsModule } from '../metrics/metrics.module';
import { StorageModule } from '../storage/storage.module';
import { CommonModule } from '../common/common.module';
import { BuildProvenanceEntity } from './provenance/build-provenance.entity';
import { BuildProvenanceRepository } from './provenance/build-provenance.repository';
import { BuildVerdictsRepository } from './provenance/build-verdicts.repository';
import { BuildVerdictsService } from './provenance/build-verdicts.service';
import { StatusChangeAudience } from './status-change-audience';
import { BuildsDeletedAuditListener } from './events/builds-deleted-audit.listener';
import { StatusNoticeCounters } from './notices/status-notice-counters';

/** Builds: upload (multipart and tus resumable) and metadata, contents and comparison, listing, review status, deletion schedule, purge, download. */
@Module({
  imports: [
    TypeOrmModule.forFeature([BuildEntity, BuildStatusChangeEntity, BuildIconEntity, BuildContentsEntity, AppCompareSettingsEntity, BuildProvenanceEntity]),
    CommonModule,
    StorageModule,
    MetricsModule,
    AppCatalogueModule,
  ],
  controllers: [BuildsController, BuildContentsController, ResumableUploadsController],
  providers: [
    BuildsRepository,
    BuildGateStates,
    BuildIntakeService,
    BuildQueryService,
    BuildReviewService,
    BuildRetentionService,
    BuildFileSweep,
    BuildDownloadService,
    BuildFiles,
    BuildMetrics,
    BuildIconsService,
    BuildContentsRepository,
    BuildContentsService,
    ResumableUploadsService,
    BuildProvenanceRepository,
    BuildVerdictsRepository,
    BuildVerdictsService,
    StatusChangeAudience,
    BuildsDeletedAuditListener,
    BuildDoneGuards,
    BuildRejectGuards,
    StatusNoticeCounters,
  ],
  exports: [BuildGateStates, StatusChangeAudience, BuildReviewService, BuildVerdictsService, BuildDoneGuards, BuildRejectGuards, StatusNoticeCounters, BuildContentsService, BuildFiles, BuildQueryService, BuildRetentionService, BuildIconsService, BuildDownloadService, ResumableUploadsService],
})
export class BuildsModule {}
