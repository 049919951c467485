/** An agent's `{ type: "event" }` message about one of its sessions, for every client connected to it. */
export class DeviceSessionEvent {
  static readonly eventName = 'agent.session_event';
  constructor(
    readonly sessionId: string,
    readonly event: string,
    readonly data: unknown,
  ) {}
}
