import type { Role } from '../../common/auth/role';

/** A member's role changed; an agent whose issuer is no longer an Admin must close (4003). */
export class MemberRoleChangedEvent {
  static readonly eventName = 'member.role_changed';
  constructor(
    readonly userId: number,
    readonly previousRole: Role,
    readonly role: Role,
  ) {}
}
