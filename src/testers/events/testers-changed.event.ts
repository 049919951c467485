/** A tester was added or removed: every instance reads again which apps have testers. */
export class TestersChangedEvent {
  static readonly eventName = 'testers.changed';
}
