import { Injectable } from '@nestjs/common';
import { SerialQueue } from '../common/serial-queue';
import { RelayConfig } from '../config/relay-config';
import { TransactionRunner } from '../database/transaction-runner';
import type { UserEntity } from './user.entity';
import { UsersService } from './users.service';

export const GUARDRAIL_MESSAGES = {
  lastBreakGlass: 'Under sso.only at least one active Admin must keep break-glass password sign-in',
} as const;

/** Which guardrail a change would break: the last active Admin, or under `sso.only` the last active break-glass Admin. */
export type GuardrailBreach = 'last_admin' | 'last_break_glass';

type Standing = Pick<UserEntity, 'role' | 'active' | 'breakGlass'>;

/** A member as they are, and what a change makes of them (null: deleted). */
export interface MemberChange {
  member: Standing;
  after: Partial<Standing> | null;
}

const activeAdmin = (m: Standing) => m.role === 'Admin' && m.active;

/**
 * The rules no path may break when it changes a member's role, active flag, break-glass flag or
 * existence (Team page, SCIM users and groups, OIDC claims and LDAP groups, PUT …/break-glass):
 * the team keeps an active Admin, and an `sso.only` relay keeps an active break-glass Admin (its
 * way in when the provider is down). Every path runs its check and its change inside serialised(),
 * one at a time across paths and instances, so two changes cannot both pass the check on counts
 * the other is about to change.
 */
@Injectable()
export class MemberGuardrails {
  private readonly queue = new SerialQueue();

  constructor(
    private readonly users: UsersService,
    private readonly config: RelayConfig,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * Runs a member change (read the member, check, write) after every other one has ended: in this
   * process through one queue, across instances through a database lock. Not reentrant: work must
   * not call serialised() again.
   */
  serialised<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(() => this.transactions.withLock('svc.member_changes', work));
  }

  /** The guardrail these changes, made together, would break; null when they keep both. Call inside serialised(). */
  async breach(changes: MemberChange[]): Promise<GuardrailBreach | null> {
    const net = (counts: (m: Standing) => boolean) =>
      changes.reduce((sum, { member, after }) => sum + (after && counts({ ...member, ...after }) ? 1 : 0) - (counts(member) ? 1 : 0), 0);
    const admins = net(activeAdmin);
    if (admins < 0 && (await this.users.countActiveAdmins()) + admins < 1) return 'last_admin';
    const breakGlass = net((m) => activeAdmin(m) && m.breakGlass);
    if (breakGlass < 0 && this.config.sso.only && (await this.users.countActiveAdmins({ breakGlass: true })) + breakGlass < 1) {
      return 'last_break_glass';
    }
    return null;
  }
}
