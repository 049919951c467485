/** A member was removed; their sessions and PATs are gone, their agents must close (4003). */
export class MemberDeletedEvent {
  static readonly eventName = 'member.deleted';
  constructor(readonly userId: number) {}
}
