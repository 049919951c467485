/** A build's device-test state may have changed (a hub session of it began or ended): the release gate and the PR status read it again. */
export class DeviceTestsChangedEvent {
  static readonly eventName = 'device-tests.changed';
  constructor(readonly buildId: number) {}
}
