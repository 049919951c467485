/**
 * A device action (tap, swipe, text, button, install…) forwarded to a session's agent, after its
 * answer: what session recordings put on their timeline. Emitted by DeviceSessionsService.forward
 * beside the audit entry; with Redis every instance hears it (the recording may be held by another).
 */
export class DeviceActionEvent {
  static readonly eventName = 'session.device_action';
  constructor(
    readonly sessionId: string,
    /** The protocol method (`tap`, `swipe`, `type_text`, …). */
    readonly method: string,
    /** The kept params (timelineDetail): coordinates, button, bundle id, build id, a text's length; never the text. */
    readonly detail: Record<string, string | number | boolean>,
    /** How it ended: `ok`, `error:<code>`, `timeout`, `offline`, `busy`. */
    readonly outcome: string,
    /** Who asked, as the audit log names them (the member's e-mail). */
    readonly by: string,
    /** How they asked: cookie (dashboard), pat, mcp. */
    readonly via: string,
    /** When the relay received the request (epoch ms, relay clock). */
    readonly requestedAt: number,
  ) {}
}
