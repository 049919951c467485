import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import { DAY_MS } from '../common/time';
import { RelayConfig } from '../config/relay-config';
import { BuildEntity } from './build.entity';
import { BuildDoneGuards, BuildRejectGuards } from './build-done-guards';
import { isFinalStatus, type BuildStatus } from './build-status';
import { BuildsRepository } from './builds.repository';
import { BuildStatusChangedEvent } from './events/build-status-changed.event';
import { StatusNoticeCounters } from './notices/status-notice-counters';
import { BuildUpdatedEvent } from './events/build-updated.event';
import { StatusChangeAudience } from './status-change-audience';

/** Answer header of PATCH /builds/:id: how many webhook endpoints the change notifies. */
export const WEBHOOKS_NOTIFIED_HEADER = 'X-Webhooks-Notified';

/** What a PATCH told the outside world (answer headers: spec §4 fixes the body). */
export interface StatusNotices {
  webhooks: number;
  forgeStatuses: number;
}

/**
 * Changes people make to a build: review status and label (PATCH) and the deletion schedule.
 * completed_at is set when the status becomes Done or Rejected (from anything else), kept while it
 * moves between those two, and cleared when it leaves them.
 */
@Injectable()
export class BuildReviewService {
  constructor(
    private readonly builds: BuildsRepository,
    private readonly clock: Clock,
    private readonly config: RelayConfig,
    private readonly events: EventEmitter2,
    private readonly audience: StatusChangeAudience,
    private readonly doneGuards: BuildDoneGuards,
    private readonly rejectGuards: BuildRejectGuards,
    private readonly notices: StatusNoticeCounters,
  ) {}

  /**
   * Resolves with the notices the change makes: webhook endpoints (0 unless it reaches Done or
   * Rejected) and forge statuses (any status change of a build whose repository has a forge).
   */
  async update(
    id: number,
    input: { statusLabel?: BuildStatus | null; versionLabel?: string | null },
    actor: Principal,
  ): Promise<StatusNotices> {
    if (input.statusLabel === undefined && input.versionLabel === undefined) {
      throw badRequest('Nothing to update: send status_label and/or version_label');
    }
    const guards = input.statusLabel === 'Done' ? this.doneGuards : input.statusLabel === 'Rejected' ? this.rejectGuards : null;
    // Asked before the change (a gate is read, never locked): a review arriving meanwhile is the next
    // change's business. Heeded only if the locked row shows the status would change (a Done build
    // marked Done again is no change to refuse); the build is not read first for that: on PostgreSQL
    // that read was a round trip of its own before the transaction (issue 42).
    const refusal = guards ? await guards.refusalOf(id, actor) : null;
    const now = this.clock.now();
    const result = await this.builds.update(id, (build) => {
      const changes: Partial<BuildEntity> = {};
      if (refusal && input.statusLabel !== build.statusLabel) throw conflict(refusal);
      if (input.versionLabel !== undefined) changes.versionLabel = input.versionLabel?.trim() || null;
      if (input.statusLabel !== undefined && input.statusLabel !== build.statusLabel) {
        changes.statusLabel = input.statusLabel;
        if (!isFinalStatus(input.statusLabel)) changes.completedAt = null;
        else if (!isFinalStatus(build.statusLabel)) changes.completedAt = now;
      }
      return changes;
    }, async (tx, before, after) => {
      if (before.statusLabel === after.statusLabel) return;
      await this.builds.recordStatus({ buildId: id, from: before.statusLabel, to: after.statusLabel, by: actor, at: now }, tx);
    });
    if (!result) throw notFound(ErrorMessages.buildNotFound);
    const { before, after } = result;
    if (before.versionLabel !== after.versionLabel) {
      this.events.emit(BuildUpdatedEvent.eventName, new BuildUpdatedEvent(id));
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'build.label_changed', `build:${id}`, { from: before.versionLabel, to: after.versionLabel }));
    }
    if (before.statusLabel !== after.statusLabel) {
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'build.status_changed', `build:${id}`, { from: before.statusLabel, to: after.statusLabel }));
    }
    if (before.statusLabel !== after.statusLabel) {
      this.events.emit(
        BuildStatusChangedEvent.eventName,
        new BuildStatusChangedEvent(
          {
            id: after.id,
            platform: after.platform,
            versionName: after.versionName,
            buildNumber: after.buildNumber,
            bundleId: after.bundleId,
            appId: after.appId,
          },
          before.statusLabel,
          after.statusLabel,
          now,
          actor,
        ),
      );
    }
    const [webhooks, forgeStatuses] = await Promise.all([
      this.audience.notifiedBy(before.statusLabel, after.statusLabel),
      before.statusLabel !== after.statusLabel ? this.notices.forgeStatuses(id) : 0,
    ]);
    return { webhooks, forgeStatuses };
  }

  /** delete_after = now + SVC_BUILD_TTL_DAYS days (rescheduling moves it). */
  async scheduleDeletion(actor: Principal, id: number): Promise<Date> {
    const deleteAfter = new Date(this.clock.nowMs() + this.config.buildTtlDays * DAY_MS);
    await this.setDeleteAfter(id, deleteAfter);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'build.deletion_scheduled', `build:${id}`, { delete_after: deleteAfter.toISOString() }));
    return deleteAfter;
  }

  async cancelDeletion(actor: Principal, id: number): Promise<void> {
    await this.setDeleteAfter(id, null);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'build.deletion_cancelled', `build:${id}`));
  }

  private async setDeleteAfter(id: number, deleteAfter: Date | null): Promise<void> {
    const result = await this.builds.update(id, () => ({ deleteAfter }));
    if (!result) throw notFound(ErrorMessages.buildNotFound);
    this.events.emit(BuildUpdatedEvent.eventName, new BuildUpdatedEvent(id));
  }
}
