import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import { conflict, notFound } from '../common/errors/http-error';
import { GUARDRAIL_MESSAGES, MemberGuardrails } from '../users/member-guardrails.service';
import { UsersService } from '../users/users.service';

export const BreakGlassMessages = {
  lastOne: GUARDRAIL_MESSAGES.lastBreakGlass,
};

/** Marks members break-glass, never leaving an `sso.only` relay without an Admin who can get in when the provider is down. */
@Injectable()
export class BreakGlassService {
  constructor(
    private readonly users: UsersService,
    private readonly guardrails: MemberGuardrails,
    private readonly events: EventEmitter2,
  ) {}

  set(actor: Principal, userId: number, breakGlass: boolean): Promise<void> {
    return this.guardrails.serialised(async () => {
      const member = await this.users.findById(userId);
      if (!member) throw notFound('Member not found');
      if (member.breakGlass === breakGlass) return;
      if (await this.guardrails.breach([{ member, after: { breakGlass } }])) throw conflict(BreakGlassMessages.lastOne);
      await this.users.update(userId, { breakGlass });
      this.events.emit(AUDIT_EVENT, new AuditEvent('member.break_glass_changed', actor.userId, actor.email, actor.via, `member:${userId}`, null, { break_glass: breakGlass }));
    });
  }
}
