import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { BuildsModule } from '../builds/builds.module';
import { ClusterModule } from '../cluster/cluster.module';
import { CommonModule } from '../common/common.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { RelayModule } from '../relay/relay.module';
import { StorageModule } from '../storage/storage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { TrackerDelivery } from './delivery/tracker-delivery';
import { TrackerOutboxSender } from './delivery/tracker-outbox.sender';
import { OutboxModule } from '../outbox/outbox.module';
import { IssueEvidence } from './evidence/issue-evidence';
import { TrackerDirectory } from './tracker-directory';
import { TrackerIssueEntity } from './tracker-issue.entity';
import { TrackerIssuesRepository } from './tracker-issues.repository';
import { TrackersController } from './trackers.controller';
import { TrackersService } from './trackers.service';
import { TrackerWebhookService } from './webhooks/tracker-webhook.service';

/** "Report issue" to Jira, Linear or GitHub Issues, with the evidence; the issue's status back on the build (docs/integrations.md). */
@Module({
  imports: [CommonModule, ClusterModule, StorageModule, BuildsModule, RecordingsModule, RelayModule, AgentsModule, WebhooksModule, OutboxModule, TypeOrmModule.forFeature([TrackerIssueEntity])],
  controllers: [TrackersController],
  providers: [TrackerDirectory, TrackerIssuesRepository, IssueEvidence, TrackerDelivery, TrackerOutboxSender, TrackersService, TrackerWebhookService],
})
export class TrackersModule {}
