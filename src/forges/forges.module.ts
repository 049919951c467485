import { ClusterModule } from '../cluster/cluster.module';
import { CommonModule } from '../common/common.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { CommentsModule } from '../comments/comments.module';
import { RelayModule } from '../relay/relay.module';
import { ShareLinksModule } from '../share-links/share-links.module';
import { ReleaseGateModule } from '../release-gate/release-gate.module';
import { DeviceTestsModule } from '../device-tests/device-tests.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ForgePullRequestEntity } from './pull-requests/pull-request.entity';
import { PullRequestComments } from './pull-requests/pull-request-comments.service';
import { ForgePullRequestRepository } from './pull-requests/pull-request.repository';
import { ForgeDirectory } from './forge-directory';
import { BuildChangesController } from './build-changes.controller';
import { BuildChangesReader } from './changes/build-changes-reader';
import { ForgesController } from './forges.controller';
import { DashboardForgesController } from './dashboard-forges.controller';
import { SecretBox } from '../common/crypto/secret-box';
import { RelayConfig } from '../config/relay-config';
import { ForgeEntity, ForgeRepositoryEntity } from './settings/forge.entity';
import { DashboardForgesRepository } from './settings/dashboard-forges.repository';
import { DashboardForgesService } from './settings/dashboard-forges.service';
import { ForgesChangedListener } from './settings/forges-changed.listener';
import { ForgesService } from './forges.service';
import { ForgeOutboxRepository } from './outbox/forge-outbox.repository';
import { ForgeDeliveryEntity, ForgeFeedEntity, ForgeStatusEntity } from './outbox/forge-status.entity';
import { ForgeOutboxWorker } from './outbox/outbox-worker';
import { BuildVerdictListener } from './status/build-verdict.listener';
import { ForgeStatusFeed } from './status/status-feed';

/** Verdicts as commit statuses / check runs on GitHub, GitLab and Gitea, through a database outbox (docs/integrations.md "Forges"). */
@Module({
  imports: [
    TypeOrmModule.forFeature([ForgeStatusEntity, ForgeDeliveryEntity, ForgeFeedEntity, ForgePullRequestEntity, ForgeEntity, ForgeRepositoryEntity]),
    CommonModule,
    ClusterModule,
    BuildsModule,
    CommentsModule,
    RelayModule,
    ShareLinksModule,
    WebhooksModule,
    ReleaseGateModule,
    DeviceTestsModule,
  ],
  controllers: [ForgesController, DashboardForgesController, BuildChangesController],
  providers: [
    // Sealed secrets need the key the operator set; one box for the module's readers and writers.
    { provide: SecretBox, useFactory: (config: RelayConfig) => new SecretBox(config.secretsKey), inject: [RelayConfig] },
    DashboardForgesRepository,
    DashboardForgesService,
    ForgesChangedListener,
    ForgeDirectory,
    ForgesService,
    BuildChangesReader,
    ForgeOutboxRepository,
    ForgePullRequestRepository,
    PullRequestComments,
    ForgeStatusFeed,
    ForgeOutboxWorker,
    BuildVerdictListener,
  ],
})
export class ForgesModule {}
