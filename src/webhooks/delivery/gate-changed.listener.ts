import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { isoWithMillis } from '../../common/time';
import { GateChangedEvent } from '../../release-gate/events/gate-changed.event';
import { WebhookDispatcher } from './webhook-dispatcher';

/**
 * `build.gate_changed` (beyond the spec; docs/release-gate.md "Webhooks"): when a build's release
 * gate changes state, every enabled endpoint gets
 * `{"event":"build.gate_changed","build":{"id":"42"},"gate":{"from":"failed","to":"passed","description":"…"},"changedAt":"…"}`,
 * signed like `build.status_changed` (whose body stays as the spec says). Never throws.
 */
@Injectable()
export class GateChangedListener {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @OnEvent(GateChangedEvent.eventName)
  onGateChanged(event: GateChangedEvent): void {
    if (event.from === event.to || (event.from === null && event.to === 'none')) return;
    const body = {
      event: GateChangedEvent.eventName,
      build: { id: String(event.buildId) },
      gate: { from: event.from, to: event.to, description: event.description },
      changedAt: isoWithMillis(event.at),
    };
    void this.dispatcher.dispatchBody(GateChangedEvent.eventName, Buffer.from(JSON.stringify(body), 'utf8')).catch((err) => this.logger.error(`Webhook dispatch failed: ${err}`, err?.stack));
  }
}
