import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildUploadedEvent } from '../builds/events/build-uploaded.event';
import { BuildReviewsService } from './build-reviews.service';
import { DEVICE_TESTS_CHANGED } from './device-test-results';
import { GatePolicyChangedEvent } from './events/gate-changed.event';
import { ReleaseGateService } from './release-gate.service';

/**
 * The deciding events besides a review (which re-evaluates in its own request): an upload (reviews
 * carried, first evaluation), a policy change, device-test results. Never throws, never makes a request wait.
 */
@Injectable()
export class ReleaseGateListener {
  private readonly logger = new Logger('ReleaseGate');

  constructor(
    private readonly gate: ReleaseGateService,
    private readonly reviews: BuildReviewsService,
  ) {}

  @OnEvent(BuildUploadedEvent.eventName)
  onUploaded(event: BuildUploadedEvent): void {
    this.quietly(`build ${event.buildId}`, this.reviews.afterUpload(event.buildId));
  }

  @OnEvent(GatePolicyChangedEvent.eventName)
  onPolicyChanged(event: GatePolicyChangedEvent): void {
    this.quietly(event.appId === null ? 'the team default' : `app ${event.appId}`, this.gate.refreshForPolicy(event.appId));
  }

  @OnEvent(DEVICE_TESTS_CHANGED)
  onDeviceTests(event: { buildId: number }): void {
    if (Number.isSafeInteger(event?.buildId)) this.quietly(`build ${event.buildId}`, this.gate.refresh(event.buildId));
  }

  private quietly(what: string, work: Promise<unknown>): void {
    work.catch((err: unknown) => this.logger.error(`Release gate of ${what}: ${(err as Error)?.stack ?? err}`));
  }
}
