import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildStatusChangedEvent } from '../../builds/events/build-status-changed.event';
import { shouldNotify } from './status-changed-payload';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Hands a status change that notifies (spec §3) to the dispatcher without waiting for it; never throws. */
@Injectable()
export class BuildStatusChangedListener {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @OnEvent(BuildStatusChangedEvent.eventName)
  onBuildStatusChanged(event: BuildStatusChangedEvent): void {
    try {
      if (!shouldNotify(event)) return;
      void this.dispatcher.dispatch(event).catch((err) => this.logger.error(`Webhook dispatch failed: ${err}`, err?.stack));
    } catch (err) {
      this.logger.error(`Webhook dispatch failed: ${err}`);
    }
  }
}
