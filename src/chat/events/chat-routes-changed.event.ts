/** A dashboard chat destination was added or removed: every instance reads chat_routes again. */
export class ChatRoutesChangedEvent {
  static readonly eventName = 'chat.routes_changed';
}
