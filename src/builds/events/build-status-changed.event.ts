import type { BuildEntity } from '../build.entity';
import type { BuildStatus, StatusActor } from '../build-status';

/** The build as the event carries it: the fields listeners (webhook payload, live events) read. */
export type StatusChangedBuild = Pick<BuildEntity, 'id' | 'platform' | 'versionName' | 'buildNumber' | 'bundleId' | 'appId'>;

/**
 * A build's review status changed (PATCH /builds/:id). Emitted after the change is committed;
 * the PATCH never waits for listeners (the webhook dispatcher subscribes).
 */
export class BuildStatusChangedEvent {
  static readonly eventName = 'build.status_changed';
  constructor(
    readonly build: StatusChangedBuild,
    readonly previousStatus: BuildStatus | null,
    readonly status: BuildStatus | null,
    readonly changedAt: Date,
    /** Who made the change (null when not known, e.g. a test-built event). */
    readonly changedBy: StatusActor | null = null,
  ) {}
}
