import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { CommentsModule } from '../comments/comments.module';
import { RelayModule } from '../relay/relay.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ForgeDirectory } from './forge-directory';
import { ForgeOutboxRepository } from './outbox/forge-outbox.repository';
import { ForgeDeliveryEntity, ForgeFeedEntity, ForgeStatusEntity } from './outbox/forge-status.entity';
import { ForgeOutboxWorker } from './outbox/outbox-worker';
import { BuildVerdictListener } from './status/build-verdict.listener';
import { ForgeStatusFeed } from './status/status-feed';

/** Verdicts as commit statuses / check runs on GitHub, GitLab and Gitea, through a database outbox (docs/integrations.md "Forges"). */
@Module({
  imports: [TypeOrmModule.forFeature([ForgeStatusEntity, ForgeDeliveryEntity, ForgeFeedEntity]), BuildsModule, CommentsModule, RelayModule, WebhooksModule],
  providers: [ForgeDirectory, ForgeOutboxRepository, ForgeStatusFeed, ForgeOutboxWorker, BuildVerdictListener],
})
export class ForgesModule {}
