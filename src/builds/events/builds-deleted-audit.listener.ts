import { Injectable } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { auditEvent, RELAY_ACTOR } from '../../audit/audit-actor';
import { AUDIT_EVENT } from '../../audit/audit-event';
import { BuildsDeletedEvent } from './builds-deleted.event';

/**
 * Builds the relay removes by itself (purged on schedule, swept for a missing file) are recorded as
 * the relay's own actions; a deletion with an app is recorded by the apps module with its actor.
 * Here, not in audit: the audit module is below every feature and knows none of their events.
 */
@Injectable()
export class BuildsDeletedAuditListener {
  constructor(private readonly events: EventEmitter2) {}

  @OnEvent(BuildsDeletedEvent.eventName)
  onBuildsDeleted(event: BuildsDeletedEvent): void {
    if (event.reason === 'app_deleted' || !event.buildIds?.length) return;
    const action = event.reason === 'purged' ? 'builds.purged' : 'builds.removed_missing_file';
    const ids = event.buildIds.slice(0, 50).join(',');
    this.events.emit(AUDIT_EVENT, auditEvent(RELAY_ACTOR, action, null, { count: event.buildIds.length, build_ids: ids }));
  }
}
