/** A sign-in through an identity provider that the relay refuses; the message is shown to the person as is. */
export class SsoRefusal extends Error {
  constructor(
    message: string,
    /** For the audit log: why, in a word (`no_role`, `unverified_email`, `token_invalid`, …). */
    readonly reason: string,
  ) {
    super(message);
    this.name = 'SsoRefusal';
  }
}
