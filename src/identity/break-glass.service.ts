import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { conflict, notFound } from '../common/errors/http-error';
import { SerialQueue } from '../common/serial-queue';
import { RelayConfig } from '../config/relay-config';
import { UsersService } from '../users/users.service';

export const BreakGlassMessages = {
  lastOne: 'Under sso.only at least one active Admin must keep break-glass password sign-in',
};

/** Marks members break-glass, never leaving an `sso.only` relay without an Admin who can get in when the provider is down. */
@Injectable()
export class BreakGlassService {
  private readonly changes = new SerialQueue();

  constructor(
    private readonly users: UsersService,
    private readonly config: RelayConfig,
    private readonly events: EventEmitter2,
  ) {}

  set(actor: Principal, userId: number, breakGlass: boolean): Promise<void> {
    return this.changes.run(async () => {
      const member = await this.users.findById(userId);
      if (!member) throw notFound('Member not found');
      if (member.breakGlass === breakGlass) return;
      if (!breakGlass && this.config.sso.only) {
        const counted = member.active && member.role === 'Admin' ? 1 : 0;
        if ((await this.users.countActiveAdmins({ breakGlass: true })) - counted === 0) throw conflict(BreakGlassMessages.lastOne);
      }
      await this.users.update(userId, { breakGlass });
      this.events.emit(AUDIT_EVENT, new AuditEvent('member.break_glass_changed', actor.userId, actor.email, actor.via, `member:${userId}`, null, { break_glass: breakGlass }));
    });
  }
}
