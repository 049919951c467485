import { Injectable, Logger } from '@nestjs/common';
import { OnEventOnEveryInstance } from '../cluster/on-every-instance.decorator';
import { SessionsRevokedEvent } from '../auth/events/sessions-revoked.event';
import { BuildStatusChangedEvent } from '../builds/events/build-status-changed.event';
import { BuildUpdatedEvent } from '../builds/events/build-updated.event';
import { BuildUploadedEvent } from '../builds/events/build-uploaded.event';
import { BuildsDeletedEvent } from '../builds/events/builds-deleted.event';
import { isoWithMillis } from '../common/time';
import { CommentDeletedEvent } from '../comments/events/comment-deleted.event';
import { GateChangedEvent } from '../release-gate/events/gate-changed.event';
import { CommentPostedEvent } from '../comments/events/comment-posted.event';
import { MemberDeletedEvent } from '../users/events/member-deleted.event';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import { shownName } from '../users/users.mapper';
import { LiveEventsService } from './live-events.service';

/**
 * The domain events the dashboard's live stream carries, turned into its payloads and handed to
 * LiveEventsService. With Redis, events of every instance reach the browsers connected to this one
 * (docs/scaling.md). Never throws: a failure is logged, the emitter's caller never sees it.
 */
@Injectable()
export class LiveEventsListener {
  private readonly logger = new Logger('LiveEvents');

  constructor(private readonly live: LiveEventsService) {}

  @OnEventOnEveryInstance(BuildUploadedEvent.eventName)
  onBuildUploaded(event: BuildUploadedEvent): void {
    this.guard(() =>
      this.live.broadcast('build.created', { build_id: event.buildId, app_id: event.appId, uploaded_by_id: event.uploadedBy.userId }),
    );
  }

  @OnEventOnEveryInstance(BuildStatusChangedEvent.eventName)
  onStatusChanged(event: BuildStatusChangedEvent): void {
    this.guard(() =>
      this.live.broadcast('build.status_changed', {
        build_id: event.build.id,
        app_id: event.build.appId,
        from_status: event.previousStatus,
        to_status: event.status,
        changed_by_id: event.changedBy?.userId ?? null,
        changed_by: event.changedBy ? shownName(event.changedBy) : null,
        changed_at: isoWithMillis(event.changedAt),
      }),
    );
  }

  @OnEventOnEveryInstance(BuildUpdatedEvent.eventName)
  onBuildUpdated(event: BuildUpdatedEvent): void {
    this.guard(() => this.live.broadcast('build.updated', { build_id: event.buildId }));
  }

  /** A changed release gate reads to the dashboard as the build updated: its page and the inbox ask again (docs/release-gate.md). */
  @OnEventOnEveryInstance(GateChangedEvent.eventName)
  onGateChanged(event: GateChangedEvent): void {
    this.guard(() => this.live.broadcast('build.updated', { build_id: event.buildId }));
  }

  @OnEventOnEveryInstance(BuildsDeletedEvent.eventName)
  onBuildsDeleted(event: BuildsDeletedEvent): void {
    this.guard(() => this.live.broadcast('builds.deleted', { build_ids: event.buildIds }));
  }

  @OnEventOnEveryInstance(CommentPostedEvent.eventName)
  onCommentPosted(event: CommentPostedEvent): void {
    this.guard(() => this.live.broadcast('comment.created', { comment_id: event.commentId, build_id: event.buildId }));
  }

  @OnEventOnEveryInstance(CommentDeletedEvent.eventName)
  onCommentDeleted(event: CommentDeletedEvent): void {
    this.guard(() => this.live.broadcast('comment.deleted', { comment_id: event.commentId, build_id: event.buildId }));
  }

  @OnEventOnEveryInstance(SessionsRevokedEvent.eventName)
  onSessionsRevoked(event: SessionsRevokedEvent): void {
    this.guard(() => this.live.endSessions(event.sessionIds));
  }

  @OnEventOnEveryInstance(MemberRoleChangedEvent.eventName)
  onRoleChanged(event: MemberRoleChangedEvent): void {
    this.guard(() => this.live.memberRoleChanged(event.userId, event.role));
  }

  @OnEventOnEveryInstance(MemberDeletedEvent.eventName)
  onMemberDeleted(event: MemberDeletedEvent): void {
    this.guard(() => this.live.memberDeleted(event.userId));
  }

  private guard(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.logger.error(`Live event not delivered: ${(err as Error).message}`, (err as Error).stack);
    }
  }
}
