import type { ClientVerdict, EndReason } from './hub-session';

/** A hub session began on a device (the recorder starts, the run's state changes). */
export class HubSessionStartedEvent {
  static readonly eventName = 'hub-session.started';
  constructor(
    readonly hubSessionId: string,
    readonly deviceSessionId: string,
    readonly buildId: number | null,
    readonly runName: string | null,
    readonly userId: number,
  ) {}
}

/** A hub session ended and its device is free. */
export class HubSessionEndedEvent {
  static readonly eventName = 'hub-session.ended';
  constructor(
    readonly hubSessionId: string,
    readonly deviceSessionId: string,
    readonly buildId: number | null,
    readonly reason: EndReason,
    readonly verdict: ClientVerdict | null,
  ) {}
}
