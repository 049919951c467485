/** An API webhook was added, changed or removed: every instance reads its enabled webhooks again. */
export class WebhooksChangedEvent {
  static readonly eventName = 'webhooks.changed';
}
