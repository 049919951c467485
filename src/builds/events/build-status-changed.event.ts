import type { BuildStatus } from '../build-status';

/**
 * A build's review status changed (PATCH /builds/:id). Emitted after the change is committed;
 * the PATCH never waits for listeners (the webhook dispatcher subscribes).
 */
export class BuildStatusChangedEvent {
  static readonly eventName = 'build.status_changed';
  constructor(
    readonly build: {
      id: number;
      platform: 'ios' | 'android';
      versionName: string | null;
      buildNumber: string | null;
      bundleId: string;
      appId: number;
    },
    readonly previousStatus: BuildStatus | null,
    readonly status: BuildStatus | null,
    readonly changedAt: Date,
  ) {}
}
