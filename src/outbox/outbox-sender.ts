/**
 * Delivers one kind of outbox message. `send` resolves when the destination accepted the message;
 * it throws an OutboundRefusal for a refusal (its status decides whether to try again, see
 * retry-policy.ts) and anything else for a network error. Messages it throws are kept as the
 * destination's last error: they must already be redacted of credentials the sender holds
 * (`redact` is applied again to whatever it throws, to be sure).
 */
export interface OutboxSender {
  readonly kind: string;
  send(payload: unknown, message: { id: number; attempts: number }): Promise<void>;
  /** Removes this sender's credentials from a text (a token, a password). */
  redact(text: string): string;
}

/** Told to the sender's module when a message was refused for good (a bounce, a 4xx), e.g. to mark a tester. */
export class OutboxMessageFailedEvent {
  static readonly eventName = 'outbox.message_failed';
  constructor(
    readonly kind: string,
    readonly destination: string,
    readonly payload: unknown,
    readonly error: string,
  ) {}
}
