import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { isoWithMillis } from '../../common/time';
import { TestRunCompletedEvent } from '../../device-tests/runs/events/test-run-completed.event';
import { WebhookDispatcher } from './webhook-dispatcher';

/**
 * `build.test_run_completed` (beyond the spec; docs/device-tests.md "Webhooks"): when a build's test
 * run has its results, every enabled endpoint gets
 * `{"event":"build.test_run_completed","build":{"id":"42"},"run":{"id":3,"name":"ci / smoke","state":"failed","tests":12,"passed":11,"failed":1,"skipped":0,"sessions":2},"completedAt":"…"}`,
 * signed like `build.status_changed`. Never throws.
 */
@Injectable()
export class TestRunCompletedListener {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @OnEvent(TestRunCompletedEvent.eventName)
  onCompleted(event: TestRunCompletedEvent): void {
    const body = {
      event: TestRunCompletedEvent.eventName,
      build: { id: String(event.buildId) },
      run: { id: event.runId, name: event.name, state: event.state, ...event.counts },
      completedAt: isoWithMillis(event.at),
    };
    void this.dispatcher
      .dispatchBody(TestRunCompletedEvent.eventName, Buffer.from(JSON.stringify(body), 'utf8'))
      .catch((err) => this.logger.error(`Webhook dispatch failed: ${err}`, err?.stack));
  }
}
