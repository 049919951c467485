/**
 * Members' rows changed (role, active, name, e-mail, password…), by any path: what was read of them
 * with a credential must be read again (the credential caches, issue 42).
 */
export class MemberChangedEvent {
  static readonly eventName = 'member.changed';
  constructor(readonly userIds: number[]) {}
}
