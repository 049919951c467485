import type { SessionPlace } from '../../agents/agent-locator.service';
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

/**
 * A hub session's client marked it (svc:status): emitted with emitAsync and awaited before the
 * client's answer, so the mark is stored before the client goes on (to its DELETE, or its end).
 */
export class HubSessionMarkedEvent {
  static readonly eventName = 'hub-session.marked';
  constructor(
    readonly hubSessionId: string,
    readonly buildId: number | null,
    readonly verdict: ClientVerdict,
  ) {}
}

/**
 * A hub session is about to be deleted on its Appium server (by its client, idle, an Admin, the
 * relay stopping): emitted with emitAsync and awaited, so listeners may still ask Appium (the
 * final screenshot, the device log) while the session exists. Listeners bound their own time.
 */
export class HubSessionClosingEvent {
  static readonly eventName = 'hub-session.closing';
  constructor(
    readonly hubSessionId: string,
    readonly place: SessionPlace,
  ) {}
}

/** A WebDriver command of a hub session was answered (`answer`), or failed in the hub (`failure`, a W3C error of the relay). */
export class HubCommandEvent {
  static readonly eventName = 'hub-session.command';
  constructor(
    readonly hubSessionId: string,
    readonly method: 'GET' | 'POST' | 'DELETE',
    readonly path: string,
    readonly body: unknown,
    /** When the relay received it (epoch ms). */
    readonly at: number,
    readonly durationMs: number,
    readonly answer: { status: number; body: unknown } | null,
    readonly failure: { code: string; message: string; status: number } | null,
  ) {}
}
