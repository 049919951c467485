import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { ActiveSession, SessionsService } from '../auth/sessions.service';
import { SsoOnlyMessages } from '../auth/sso-only';
import { RelayConfig } from '../config/relay-config';
import type { Principal } from '../common/auth/principal';
import { ROLES, type Role } from '../common/auth/role';
import { Clock } from '../common/clock';
import { linkTokenHash, newLinkToken } from '../common/crypto/link-token';
import { ErrorMessages } from '../common/errors/error-messages';
import { HttpStatus, Injectable } from '@nestjs/common';
import { badRequest, conflict, forbidden, gone, HttpError, notFound } from '../common/errors/http-error';
import { SerialQueue } from '../common/serial-queue';
import { DAY_MS } from '../common/time';
import { isEmailAddress } from '../common/validation/email';
import { isUniqueViolation } from '../database/unique-violation';
import { invitationMessage } from '../mail/mail-messages';
import { MailService } from '../mail/mail.service';
import { PublicUrlService } from '../relay/public-url.service';
import { SettingsService } from '../settings/settings.service';
import { ImageForm, StoredImagesService } from '../images/stored-images.service';
import { PasswordHasher } from '../users/password-hasher';
import type { UserEntity } from '../users/user.entity';
import { UsersService, normalizeEmail } from '../users/users.service';
import { shownName } from '../users/users.mapper';
import { TransactionRunner } from '../database/transaction-runner';
import type { AcceptInvitationFields } from './dto/accept-invitation.dto';
import { InvitationEntity } from './invitation.entity';
import { InvitationsRepository } from './invitations.repository';
import { InvitationMessages } from './invitation-messages';
import { toOpenInvitation, type InvitationDetails, type InviteResponse, type OpenInvitation } from './invitations.mapper';

export const INVITATION_TTL_MS = 7 * DAY_MS;
/**
 * How long an expired invitation is kept before the purge removes it: its link then still says
 * "expired" (410 with `X-Invitation-State: expired`) to the invitee who opens it late, instead of
 * "does not work", which a purge at expiry made every late invitee see.
 */
export const EXPIRED_INVITATION_KEPT_MS = 30 * DAY_MS;
export const INVITE_PAGE_PATH = '/invite';
/** The header of a 410 that says why an invitation link no longer works. */
export const INVITATION_STATE_HEADER = 'X-Invitation-State';

type InvitationState = 'open' | 'used' | 'expired' | 'unknown';

/** Accepted invitations are kept (the row records who joined); revoked ones are deleted, so unknown. */
function stateOf(invitation: InvitationEntity, nowMs: number): InvitationState {
  if (invitation.acceptedAt) return 'used';
  return invitation.expiresAt.getTime() > nowMs ? 'open' : 'expired';
}

/**
 * Invitations (spec §4): a 64-hex token of 32 random bytes, stored only as its hash, valid 7 days,
 * used once. Accepting creates the member and signs them in. An invitation created without an
 * e-mail takes the address from the accept form's `email` field (docs/team.md).
 */
@Injectable()
export class InvitationsService {
  /** Accepts run one at a time; the conditional update in the transaction is the final word. */
  private readonly accepts = new SerialQueue();

  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly transactions: TransactionRunner,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionsService,
    private readonly images: StoredImagesService,
    private readonly mail: MailService,
    private readonly publicUrl: PublicUrlService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly config: RelayConfig,
  ) {}

  async create(actor: Principal, input: { email?: string; role?: Role }): Promise<InviteResponse> {
    if (this.config.sso.only) throw forbidden(SsoOnlyMessages.invitation);
    const email = input.email ? normalizeEmail(input.email) : null;
    if (email && (await this.users.findByEmail(email))) throw conflict(InvitationMessages.alreadyMember);
    const role = input.role ?? 'QA';
    const { token, hash } = newLinkToken();
    const now = this.clock.now();
    const saved = await this.invitations.insert({
      tokenHash: hash,
      email,
      role,
      invitedBy: actor.userId,
      acceptedUserId: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      acceptedAt: null,
    });
    const inviteUrl = this.publicUrl.link(INVITE_PAGE_PATH, token);
    const emailSent = email
      ? await this.mail.send(
          email,
          invitationMessage({
            teamName: await this.settings.teamName(),
            role,
            link: inviteUrl,
            path: `${INVITE_PAGE_PATH}?token=${token}`,
          }),
        )
      : false;
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'invitation.created', `invitation:${saved.id}`, { email, role, email_sent: emailSent }));
    return { token, emailSent, inviteUrl };
  }

  /** Invitations that can still be accepted, newest first (the Team page lists them to revoke). */
  async listOpen(): Promise<OpenInvitation[]> {
    return (await this.invitations.listOpen(this.clock.now())).map(toOpenInvitation);
  }

  /** Revokes an open invitation: its link answers 410 from now on. 404 when none is open with this id. */
  async revoke(actor: Principal, id: number): Promise<void> {
    if (!(await this.invitations.deleteOpen(id, this.clock.now()))) throw notFound(InvitationMessages.notFound);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'invitation.revoked', `invitation:${id}`));
  }

  /** The open invitation for a token, or null when unknown, expired or used. */
  async findUsable(token: unknown): Promise<InvitationEntity | null> {
    const invitation = await this.findByToken(token);
    return invitation && stateOf(invitation, this.clock.nowMs()) === 'open' ? invitation : null;
  }

  /**
   * The open invitation for a token; 400 without one, 410 when unknown, expired or used. The 410
   * keeps the spec's message and says which in `X-Invitation-State` (`used`, `expired`; absent when
   * unknown or revoked), so the page can tell a used link from an expired one.
   */
  async usable(token: unknown): Promise<InvitationEntity> {
    if (typeof token !== 'string' || !token) throw badRequest(InvitationMessages.tokenRequired);
    const invitation = await this.findByToken(token);
    const state = invitation ? stateOf(invitation, this.clock.nowMs()) : 'unknown';
    if (state === 'open') return invitation!;
    throw new HttpError(HttpStatus.GONE, ErrorMessages.invitationGone, state === 'unknown' ? {} : { [INVITATION_STATE_HEADER]: state });
  }

  /** GET /invitations/verify: the role, and who is invited to which team by whom, for the invitee's page. */
  async details(token: unknown): Promise<InvitationDetails> {
    const invitation = await this.usable(token);
    const inviter = invitation.invitedBy ? await this.users.findById(invitation.invitedBy) : null;
    return {
      role: invitation.role,
      email: invitation.email,
      team_name: await this.settings.teamName(),
      invited_by: inviter ? shownName(inviter) : null,
    };
  }

  private async findByToken(token: unknown): Promise<InvitationEntity | null> {
    const hash = linkTokenHash(token);
    return hash ? this.invitations.findByHash(hash) : null;
  }

  /**
   * POST /invitations/accept. Checks run in the order: form (400), token (410), e-mail (400/409).
   * Creates the member and consumes the invitation in one transaction; returns a new session.
   */
  async accept(form: ImageForm<AcceptInvitationFields>, clientAddress: string | null): Promise<ActiveSession> {
    try {
      const { token, password, display_name: displayName, email: formEmail } = form.fields;
      await this.usable(token);
      if (this.config.sso.only) throw forbidden(SsoOnlyMessages.invitation);
      const passwordHash = await this.hasher.hash(password);
      const user = await this.accepts.run(async () => {
        const invitation = await this.usable(token);
        const email = invitation.email ?? this.formEmail(formEmail);
        if (await this.users.findByEmail(email)) throw conflict(InvitationMessages.accountExists);
        return this.consume(invitation, { email, passwordHash, role: invitation.role, displayName: displayName ?? null });
      });
      const avatar = form.image('avatar');
      if (avatar) await this.users.update(user.id, { avatarPath: await this.images.keep(avatar) });
      const session = await this.sessions.start(user.id, 'password');
      this.events.emit(
        AUDIT_EVENT,
        auditEvent({ actorId: user.id, actorLabel: user.email, via: 'anonymous', clientAddress }, 'member.joined', `member:${user.id}`, {
          role: user.role,
        }),
      );
      return session;
    } finally {
      await form.discard();
    }
  }

  /** True when the member joined through an invitation that had no e-mail (send-reset then sends none). */
  async joinedWithoutEmail(userId: number): Promise<boolean> {
    const invitation = await this.invitations.acceptedBy(userId);
    return !!invitation && invitation.email === null;
  }

  /** Removes invitations expired (and never accepted) for longer than EXPIRED_INVITATION_KEPT_MS. */
  async purgeExpired(): Promise<number> {
    return this.invitations.deleteExpired(new Date(this.clock.nowMs() - EXPIRED_INVITATION_KEPT_MS));
  }

  private formEmail(value: string | undefined): string {
    const email = value?.trim();
    if (!email) throw badRequest(InvitationMessages.emailRequired);
    if (!isEmailAddress(email)) throw badRequest('email must be a valid e-mail address');
    return normalizeEmail(email);
  }

  private async consume(
    invitation: InvitationEntity,
    input: { email: string; passwordHash: string; role: Role; displayName: string | null },
  ): Promise<UserEntity> {
    try {
      return await this.transactions.run(async (tx) => {
        const user = await this.users.insertHashed(input);
        const now = this.clock.now();
        if (!(await this.invitations.claim(invitation.id, user.id, now, tx))) throw gone(ErrorMessages.invitationGone);
        return user;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(InvitationMessages.accountExists);
      throw err;
    }
  }
}
