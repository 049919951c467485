import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BuildStatusChangedEvent } from '../../builds/events/build-status-changed.event';
import { BuildUploadedEvent } from '../../builds/events/build-uploaded.event';
import { CommentPostedEvent } from '../../comments/events/comment-posted.event';
import { DeviceTestsChangedEvent } from '../../device-tests/results/device-tests-changed.event';
import { GateChangedEvent } from '../../release-gate/events/gate-changed.event';
import { ForgeOutboxWorker } from '../outbox/outbox-worker';
import { ForgeStatusFeed } from './status-feed';

/**
 * Nudges the feed after an upload, a status change or a comment (each already committed). The
 * feed reads what happened from the status history, so a nudge lost to a crash costs nothing but
 * time: the next start reads it. Never throws, never makes the request wait.
 */
@Injectable()
export class BuildVerdictListener {
  constructor(
    private readonly feed: ForgeStatusFeed,
    private readonly worker: ForgeOutboxWorker,
  ) {}

  @OnEvent(BuildUploadedEvent.eventName)
  @OnEvent(BuildStatusChangedEvent.eventName)
  onVerdict(): void {
    void this.feed.catchUp().then(() => this.worker.kick());
  }

  /** Resolves once the commit's statuses are queued: the gate marks its change handed on after that (a crash before it re-sends). */
  @OnEvent(GateChangedEvent.eventName)
  async onGateChanged(event: GateChangedEvent): Promise<void> {
    await this.feed.refresh(event.buildId);
    void this.worker.kick();
  }

  /** A comment changes the description; a build's device tests that began, ended or got a JUnit report change `svc/device-tests`. */
  @OnEvent(CommentPostedEvent.eventName)
  @OnEvent(DeviceTestsChangedEvent.eventName)
  onComment(event: CommentPostedEvent | DeviceTestsChangedEvent): void {
    void this.feed.refresh(event.buildId).then(() => this.worker.kick());
  }
}
