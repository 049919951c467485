import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BuildStatusChangedListener } from './delivery/build-status-changed.listener';
import { ConfigFileWebhooks } from './delivery/config-file-webhooks';
import { DeliveryLog } from './delivery/delivery-log';
import { WebhookDeliverySettings } from './delivery/delivery-settings';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { WebhookSender } from './delivery/webhook-sender';
import { DestinationGuard } from './destination/destination-guard';
import { HostnameResolver } from './destination/hostname-resolver';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhook registration (with the SSRF rule), signed delivery of build.status_changed, config-file endpoints. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity])],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    HostnameResolver,
    DestinationGuard,
    WebhookDeliverySettings,
    WebhookSender,
    DeliveryLog,
    ConfigFileWebhooks,
    WebhookDispatcher,
    BuildStatusChangedListener,
  ],
})
export class WebhooksModule {}
