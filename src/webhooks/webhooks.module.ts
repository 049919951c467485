import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GateChangedListener } from './delivery/gate-changed.listener';
import { TestRunCompletedListener } from './delivery/test-run-completed.listener';
import { BuildStatusChangedListener } from './delivery/build-status-changed.listener';
import { ConfigFileDeliveryLog } from './delivery/config-file-delivery-log';
import { ConfigFileWebhooks } from './delivery/config-file-webhooks';
import { DeliveryLogRepository } from './delivery/delivery-log.repository';
import { WebhookDeliverySettings } from './delivery/delivery-settings';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { WebhookSender } from './delivery/webhook-sender';
import { WebhookAudience } from './delivery/webhook-audience';
import { DestinationGuard } from './destination/destination-guard';
import { HostnameResolver } from './destination/hostname-resolver';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { ConfigWebhooksController } from './config-webhooks.controller';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';
import { WebhooksRepository } from './webhooks.repository';
import { MetricsModule } from '../metrics/metrics.module';
import { CommonModule } from '../common/common.module';
import { BuildsModule } from '../builds/builds.module';

/** Webhook registration (with the SSRF rule), signed delivery of build.status_changed, config-file endpoints. */
@Module({
  imports: [CommonModule, MetricsModule, BuildsModule, TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity])],
  controllers: [WebhooksController, ConfigWebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    HostnameResolver,
    DestinationGuard,
    WebhookDeliverySettings,
    WebhookSender,
    DeliveryLogRepository,
    ConfigFileDeliveryLog,
    ConfigFileWebhooks,
    WebhookDispatcher,
    BuildStatusChangedListener,
    GateChangedListener,
    TestRunCompletedListener,
    WebhookAudience,
  ],
  // Forges keep the same SSRF rule.
  exports: [DestinationGuard],
})
export class WebhooksModule {}
