/**
 * Browser sessions of a member ended (logout, password change or reset, deletion).
 * WebSockets opened with those cookies must close.
 */
export class SessionsRevokedEvent {
  static readonly eventName = 'sessions.revoked';
  constructor(
    readonly userId: number,
    readonly sessionIds: number[],
  ) {}
}
