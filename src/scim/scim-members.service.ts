import { HttpStatus, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import { SessionsService } from '../auth/sessions.service';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import { isEmailAddress } from '../common/validation/email';
import { RelayConfig } from '../config/relay-config';
import type { RoleMapping } from '../config/sso-config';
import { SsoMembersService } from '../identity/sso-members.service';
import { TeamService } from '../team/team.service';
import { TokensService } from '../tokens/tokens.service';
import { PasswordResetService } from '../password-reset/password-reset.service';
import { TwoFactorService } from '../two-factor/two-factor.service';
import { GUARDRAIL_MESSAGES, MemberGuardrails, type MemberChange } from '../users/member-guardrails.service';
import type { UserEntity } from '../users/user.entity';
import { normalizeEmail, UsersService } from '../users/users.service';
import { ScimError } from './scim-error';
import type { ScimGroupEntity } from './scim-group.entity';
import { ScimGroupsRepository } from './scim-groups.repository';

/** SCIM's refusals of a member it may not change (409 `mutability`, docs/identity.md). */
export const SCIM_MESSAGES = {
  lastActiveAdmin: 'The last active Admin cannot be deactivated, deleted or demoted',
  breakGlass: 'SCIM does not change break-glass members; an Admin manages them on the relay',
  notManaged: 'SCIM changes only the members it provisioned or linked through externalId',
} as const;

/** What a SCIM User body may set. */
export interface ScimUserFields {
  userName?: string;
  displayName?: string | null;
  externalId?: string | null;
  active?: boolean;
}

/**
 * The member side of SCIM: provisioning, changes, deactivation (every session ends at once) and
 * roles from group membership. Every change runs inside MemberGuardrails.serialised, one at a time
 * with the Team page's and single sign-on's, so the last-Admin rule holds under parallel requests.
 */
@Injectable()
export class ScimMembersService {
  constructor(
    private readonly guardrails: MemberGuardrails,
    private readonly groups: ScimGroupsRepository,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly config: RelayConfig,
    private readonly events: EventEmitter2,
    private readonly ssoMembers: SsoMembersService,
    private readonly twoFactor: TwoFactorService,
    private readonly resets: PasswordResetService,
    private readonly team: TeamService,
  ) {}

  /** The mapping of SCIM groups to roles: `sso.oidc`'s, else `sso.ldap`'s (the same provider's groups). */
  private mapping(): RoleMapping | null {
    return this.config.sso.oidc ?? this.config.sso.ldap;
  }

  async find(id: string): Promise<UserEntity> {
    const user = /^\d{1,9}$/.test(id) ? await this.users.findById(Number(id)) : null;
    if (!user) throw new ScimError(HttpStatus.NOT_FOUND, `User ${id} not found`);
    return user;
  }

  groupsOf(userId: number): Promise<ScimGroupEntity[]> {
    return this.groups.groupsOf(userId);
  }

  create(actor: Principal, fields: ScimUserFields): Promise<UserEntity> {
    return this.guardrails.serialised(async () => {
      const email = this.email(fields.userName);
      if (await this.users.findByEmail(email)) throw new ScimError(HttpStatus.CONFLICT, `A member with userName ${email} exists`, 'uniqueness');
      // No group yet: the default role, or Viewer as a placeholder. Single sign-on still refuses
      // anyone no mapped group or default role admits, so the placeholder grants nothing by itself.
      const role: Role = this.mapping()?.defaultRole ?? 'Viewer';
      const user = await this.users.createWithoutPassword({ email, role, displayName: fields.displayName ?? null });
      await this.users.update(user.id, { scimExternalId: fields.externalId ?? null });
      await this.ssoMembers.markProvisioned(user.id);
      this.audit('scim.user_created', actor, user.id, { email, role });
      if (fields.active === false) await this.deactivate(actor, user.id);
      return (await this.users.findById(user.id))!;
    });
  }

  update(actor: Principal, id: string, fields: ScimUserFields): Promise<UserEntity> {
    return this.guardrails.serialised(async () => {
      const user = await this.find(id);
      await this.assertManaged(user, !!fields.externalId);
      if (fields.active === false) await this.assertAllowed([{ member: user, after: { active: false } }]);
      if (fields.userName !== undefined) {
        const email = this.email(fields.userName);
        const other = await this.users.findByEmail(email);
        if (other && other.id !== user.id) throw new ScimError(HttpStatus.CONFLICT, `A member with userName ${email} exists`, 'uniqueness');
        await this.users.update(user.id, { email });
      }
      if (fields.displayName !== undefined) await this.users.update(user.id, { displayName: fields.displayName?.trim() || null });
      if (fields.externalId !== undefined) await this.users.update(user.id, { scimExternalId: fields.externalId });
      if (fields.active === false && user.active) await this.deactivate(actor, user.id);
      if (fields.active === true && !user.active) {
        await this.users.update(user.id, { active: true });
        this.audit('scim.user_reactivated', actor, user.id, {});
      }
      this.audit('scim.user_updated', actor, user.id, { fields: Object.keys(fields).join(',') });
      return (await this.users.findById(user.id))!;
    });
  }

  /** Deletes the member as the Team page does (sessions, PATs, sockets, avatar; contributions stay). */
  delete(actor: Principal, id: string): Promise<void> {
    return this.guardrails.serialised(async () => {
      const user = await this.find(id);
      await this.assertManaged(user, false);
      await this.assertAllowed([{ member: user, after: null }]);
      await this.team.remove(actor, user);
      this.audit('scim.user_deleted', actor, user.id, { email: user.email });
    });
  }

  /**
   * Whether SCIM may change this member (issue 36): one it provisioned, or one linked to the
   * provider through `externalId`; never a break-glass member, the way in when the provider is down.
   */
  manages(user: UserEntity, provisioned: boolean): boolean {
    return !user.breakGlass && (provisioned || user.scimExternalId !== null);
  }

  /** `linking`: the change sets an externalId, which hands a local (not break-glass) member to SCIM. */
  private async assertManaged(user: UserEntity, linking: boolean): Promise<void> {
    if (user.breakGlass) throw new ScimError(HttpStatus.CONFLICT, SCIM_MESSAGES.breakGlass, 'mutability');
    const provisioned = (await this.ssoMembers.provisionedThroughScim([user.id])).has(user.id);
    if (!linking && !this.manages(user, provisioned)) throw new ScimError(HttpStatus.CONFLICT, SCIM_MESSAGES.notManaged, 'mutability');
  }

  /** 409 `mutability` when the changes would break a guardrail (MemberGuardrails); call inside serialised(). */
  async assertAllowed(changes: MemberChange[]): Promise<void> {
    const breach = await this.guardrails.breach(changes);
    if (breach) throw new ScimError(HttpStatus.CONFLICT, breach === 'last_admin' ? SCIM_MESSAGES.lastActiveAdmin : GUARDRAIL_MESSAGES.lastBreakGlass, 'mutability');
  }

  /**
   * Deactivation ends everything the member holds at once: sessions (cookies, their device-session
   * and video sockets and live-event streams close on `sessions.revoked`), PATs (agents and PAT
   * sockets close on `tokens.revoked`), on every instance through the cluster bridge, and pending
   * two-factor sign-ins and password-reset links. The row stays, inactive; the credential checks
   * refuse an inactive member by themselves too (docs/identity.md "Offboarding is final").
   */
  private async deactivate(actor: Principal, userId: number): Promise<void> {
    await this.users.update(userId, { active: false });
    await this.sessions.endAllFor(userId);
    await this.tokens.revokeAllFor(userId, 'member_deleted');
    await this.twoFactor.closeChallengesOf(userId);
    await this.resets.revokeAllFor(userId);
    this.audit('scim.user_deactivated', actor, userId, {});
  }

  private email(userName: string | undefined): string {
    const email = normalizeEmail(userName ?? '');
    if (!email || !isEmailAddress(email)) throw new ScimError(HttpStatus.BAD_REQUEST, 'userName must be the member’s e-mail address', 'invalidValue');
    return email;
  }

  audit(action: string, actor: Principal, userId: number | null, details: AuditEvent['details'], target?: string): void {
    // Every SCIM write names the token that made it (reads are not recorded: docs/audit.md).
    const withToken = { ...details, scim_token_id: actor.tokenId };
    this.events.emit(AUDIT_EVENT, new AuditEvent(action, null, actor.email, 'scim', target ?? (userId ? `member:${userId}` : null), actor.clientAddress, withToken));
  }
}
