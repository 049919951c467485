import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildsModule } from '../builds/builds.module';
import { CommonModule } from '../common/common.module';
import { DeviceTestsModule } from '../device-tests/device-tests.module';
import { OutboxModule } from '../outbox/outbox.module';
import { RelayModule } from '../relay/relay.module';
import { ReleaseGateModule } from '../release-gate/release-gate.module';
import { UsersModule } from '../users/users.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { SecretBox } from '../common/crypto/secret-box';
import { RelayConfig } from '../config/relay-config';
import { ChatController } from './chat.controller';
import { ChatSettingsService } from './chat-settings.service';
import { ChatRouteEntity } from './routes/chat-route.entity';
import { ChatRoutesRepository } from './routes/chat-routes.repository';
import { ChatRoutesService } from './routes/chat-routes.service';
import { ChatDestinations } from './chat-destinations';
import { ChatNoticesListener } from './chat-notices.listener';
import { ChatNoticesService } from './chat-notices.service';
import { SlackActionsService } from './slack/slack-actions.service';
import { SlackMessageEntity } from './slack/slack-message.entity';
import { SlackMessagesRepository } from './slack/slack-messages.repository';
import { SlackNoticeSender, SlackResponseSender } from './slack/slack-senders';
import { TeamsSender } from './teams/teams-sender';

/**
 * Slack and Microsoft Teams (issue 39 item 2, docs/integrations.md "Slack and Microsoft Teams"):
 * build notices to the channels and webhooks of svc.config.json `chat` through the outbox, and
 * Slack's review buttons acting as the member Slack's e-mail names.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SlackMessageEntity, ChatRouteEntity]), CommonModule, OutboxModule, BuildsModule, ReleaseGateModule, DeviceTestsModule, RelayModule, UsersModule, WebhooksModule],
  controllers: [ChatController],
  providers: [
    { provide: SecretBox, useFactory: (config: RelayConfig) => new SecretBox(config.secretsKey), inject: [RelayConfig] },
    ChatRoutesRepository,
    ChatRoutesService,
    ChatSettingsService,
    ChatDestinations, ChatNoticesService, ChatNoticesListener, SlackMessagesRepository, SlackNoticeSender, SlackResponseSender, TeamsSender, SlackActionsService],
})
export class ChatModule {}
