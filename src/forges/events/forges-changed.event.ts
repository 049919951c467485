/** A forge was added, changed or removed in the dashboard: every instance reads the forges again. */
export class ForgesChangedEvent {
  static readonly eventName = 'forges.changed';

  constructor(readonly forgeId: number) {}
}
