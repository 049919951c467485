import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import { Clock } from '../common/clock';
import type { Role } from '../common/auth/role';
import { SerialQueue } from '../common/serial-queue';
import { isUniqueViolation } from '../database/unique-violation';
import type { RoleMapping } from '../config/sso-config';
import { MemberRoleChangedEvent } from '../users/events/member-role-changed.event';
import { MemberGuardrails } from '../users/member-guardrails.service';
import type { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { roleForGroups } from './role-mapping';
import { SsoIdentitiesRepository } from './sso-identities.repository';
import type { SsoProvider } from './sso-identity.entity';
import { SsoRefusal } from './sso-refusal';
import { ClusterEventsBridge } from '../cluster/cluster-events.bridge';

/** What an identity provider says about the person signing in. */
export interface ExternalIdentity {
  provider: SsoProvider;
  /** Stable at the provider: `<iss> <sub>` for OIDC, the entry's DN for LDAP. */
  subject: string;
  /** Shown in the audit log and messages: the provider's name. */
  providerName: string;
  email: string;
  /** Only a verified e-mail may link an existing local member (OIDC `email_verified`; a directory's own entry is). */
  emailVerified: boolean;
  /** The provider's SCIM `externalId` for this person (OIDC `sso.oidc.externalIdClaim`), or null: proves a member SCIM created. */
  externalId: string | null;
  displayName: string | null;
  groups: string[];
  /** Where the groups were read, for the refusal and its audit entry: `claim "groups"`, `attribute "memberOf"`. */
  groupsFrom: string;
  /** How an Admin makes the provider send groups, said when none arrived. */
  noGroupsHint: string;
  mapping: RoleMapping;
  clientAddress: string | null;
}

/**
 * Finds or provisions the member behind an external identity and keeps their role in step with
 * their groups. The same rules for OIDC and LDAP: first sign-in provisions with the mapped role
 * (none and no default → refused), later sign-ins update it, an existing member is linked by a
 * verified e-mail only (one SCIM created: or by the provider's externalId), a member keeps one link
 * per provider, and a claim never demotes the last active Admin or, under `sso.only`, the last active
 * break-glass Admin (MemberGuardrails: the team would be locked out).
 */
@Injectable()
export class SsoMembersService {
  /** First sign-ins of one person in two tabs must not both provision. */
  private readonly queue = new SerialQueue();

  constructor(
    private readonly identities: SsoIdentitiesRepository,
    private readonly users: UsersService,
    private readonly guardrails: MemberGuardrails,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly cluster: ClusterEventsBridge,
  ) {}

  signIn(identity: ExternalIdentity): Promise<UserEntity> {
    return this.queue.run(async () => {
      const role = roleForGroups(identity.groups, identity.mapping);
      const linked = await this.identities.memberOf(identity.provider, identity.subject);
      let member = linked !== null ? await this.users.findById(linked) : null;
      if (member && !member.active) {
        throw this.refuse(identity, member, 'deactivated', 'This account was deactivated on the relay by your identity provider (SCIM). Ask an Admin.');
      }
      if (!role) throw this.refuse(identity, member, 'no_role', noRoleMessage(identity), groupsReceived(identity));
      if (!member) member = await this.linkOrProvision(identity, role);
      if (member.role !== role) await this.updateRole(identity, member, role);
      this.audit('auth.sign_in', member, identity, { method: identity.provider });
      return member;
    });
  }

  private async linkOrProvision(identity: ExternalIdentity, role: Role): Promise<UserEntity> {
    const existing = await this.users.findByEmail(identity.email);
    if (existing && !existing.active) {
      throw this.refuse(identity, existing, 'deactivated', 'This account was deactivated on the relay by your identity provider (SCIM). Ask an Admin.');
    }
    // One link per provider: a second subject claiming a linked member's e-mail is another person
    // until an Admin says otherwise, verified or not (issue 36).
    if (existing && (await this.identities.exists(existing.id, identity.provider))) {
      throw this.refuse(identity, existing, 'already_linked', alreadyLinkedMessage(identity));
    }
    if (existing && !identity.emailVerified && !(await this.provenByScim(identity, existing))) {
      throw this.refuse(
        identity,
        existing,
        'unverified_email',
        `A member with the e-mail ${identity.email} already exists here, but ${identity.providerName} has not verified that ` +
          'this address is yours, so the accounts cannot be linked. Ask your identity provider to verify it, or an Admin of the relay for help.',
      );
    }
    const member = existing ?? (await this.users.createWithoutPassword({ email: identity.email, role, displayName: identity.displayName }));
    try {
      await this.identities.insert({ userId: member.id, provider: identity.provider, subject: identity.subject, createdAt: this.clock.now() });
    } catch (err) {
      // Another instance linked this member for this provider meanwhile (the unique (user_id, provider) index).
      if (existing && isUniqueViolation(err)) throw this.refuse(identity, existing, 'already_linked', alreadyLinkedMessage(identity));
      throw err;
    }
    this.audit(existing ? 'sso.member_linked' : 'sso.member_provisioned', member, identity, { role });
    return member;
  }

  /**
   * A member the provider itself created through SCIM is its own, not a local account to protect:
   * linked without a verified e-mail (Entra ID sends no email_verified) when the provider's
   * externalId claim names the member SCIM gave that externalId. The e-mail alone is no proof: anyone
   * at the provider may type any address into their profile.
   */
  private async provenByScim(identity: ExternalIdentity, member: UserEntity): Promise<boolean> {
    if (identity.externalId === null || member.scimExternalId !== identity.externalId) return false;
    return this.identities.exists(member.id, 'scim');
  }

  /** Marks a member as created by the identity provider through SCIM (see provenByScim). */
  async markProvisioned(userId: number): Promise<void> {
    await this.identities.insert({ userId, provider: 'scim', subject: `scim ${userId}`, createdAt: this.clock.now() });
  }

  /** Which of these members SCIM created (markProvisioned), looked up IN_LIST_MAX at a time. */
  provisionedThroughScim(userIds: number[]): Promise<Set<number>> {
    return this.identities.linkedAt('scim', userIds);
  }

  /** Skipped (and audited) when it would break a guardrail: the sign-in itself goes on. */
  private updateRole(identity: ExternalIdentity, member: UserEntity, role: Role): Promise<void> {
    return this.guardrails.serialised(async () => {
      // Read again in turn: another path may have changed the member while this one waited.
      const current = (await this.users.findById(member.id)) ?? member;
      member.role = current.role;
      if (current.role === role) return;
      const breach = await this.guardrails.breach([{ member: current, after: { role } }]);
      if (breach) {
        this.audit('sso.role_update_skipped', member, identity, { role, reason: breach });
        return;
      }
      await this.users.update(member.id, { role });
      member.role = role;
      await this.cluster.announce(MemberRoleChangedEvent.eventName, new MemberRoleChangedEvent(member.id, current.role, role));
      this.audit('member.role_changed', member, identity, { from: current.role, to: role, source: 'sso_claim' });
    });
  }

  private refuse(identity: ExternalIdentity, member: UserEntity | null, reason: string, message: string, details: AuditEvent['details'] = {}): SsoRefusal {
    this.audit('auth.sign_in_failed', member, identity, { method: identity.provider, reason, ...details });
    return new SsoRefusal(message, reason);
  }

  private audit(action: string, member: UserEntity | null, identity: ExternalIdentity, details: AuditEvent['details']): void {
    this.events.emit(
      AUDIT_EVENT,
      new AuditEvent(action, member?.id ?? null, identity.email, 'sso', member ? `member:${member.id}` : null, identity.clientAddress, details),
    );
  }
}

function alreadyLinkedMessage(identity: ExternalIdentity): string {
  return (
    `The member with the e-mail ${identity.email} already signs in here with another account at ${identity.providerName}, ` +
    'so this one cannot be linked to it. Sign in with that account, or ask an Admin of the relay.'
  );
}

/** Shown in the refusal and recorded with it; a member of hundreds of groups gets the first few named. */
const GROUPS_NAMED = 20;

/**
 * Names what was read and what came, so "in no group" can be told apart from "the provider sent
 * none" (a scope or claim missing at the provider) without reading the provider's logs.
 */
function noRoleMessage(identity: ExternalIdentity): string {
  const received = identity.groups.length
    ? `received ${identity.groups.length} group${identity.groups.length === 1 ? '' : 's'} (${namedGroups(identity.groups)}), none of them mapped to a role. Ask an Admin to add you to one.`
    : `received no groups. ${identity.noGroupsHint}`;
  return (
    `Your account at ${identity.providerName} is in no group that gives a role on this relay, and the relay gives none by default. ` +
    `The relay read the ${identity.groupsFrom} and ${received}`
  );
}

function groupsReceived(identity: ExternalIdentity): AuditEvent['details'] {
  return { groups_from: identity.groupsFrom, groups_received: identity.groups.length, groups: JSON.stringify(identity.groups.slice(0, GROUPS_NAMED)) };
}

function namedGroups(groups: string[]): string {
  const named = groups.slice(0, GROUPS_NAMED).join(', ');
  return groups.length > GROUPS_NAMED ? `${named}, …` : named;
}
