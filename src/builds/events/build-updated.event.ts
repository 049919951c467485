/**
 * A build's label or deletion schedule changed (status changes have their own event). Emitted
 * after the commit, fire-and-forget; the dashboard's live stream relays it.
 */
export class BuildUpdatedEvent {
  static readonly eventName = 'build.updated';
  constructor(readonly buildId: number) {}
}
