import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AuditActor, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import { SessionsService } from '../auth/sessions.service';
import { SsoOnlyMessages } from '../auth/sso-only';
import { Clock } from '../common/clock';
import { RelayConfig } from '../config/relay-config';
import { linkTokenHash, newLinkToken } from '../common/crypto/link-token';
import { badRequest, forbidden, gone, notFound } from '../common/errors/http-error';
import { HOUR_MS } from '../common/time';
import { InvitationsService } from '../invitations/invitations.service';
import { passwordResetMessage } from '../mail/mail-messages';
import { MailService } from '../mail/mail.service';
import { PublicUrlService } from '../relay/public-url.service';
import { SettingsService } from '../settings/settings.service';
import { TokensService } from '../tokens/tokens.service';
import { PasswordHasher } from '../users/password-hasher';
import { UsersService } from '../users/users.service';
import { TransactionRunner } from '../database/transaction-runner';
import { PasswordResetEntity } from './password-reset.entity';
import { PasswordResetRepository } from './password-reset.repository';
import type { SendResetResponse } from './password-reset.mapper';

export const RESET_TTL_MS = 2 * HOUR_MS;
export const RESET_PAGE_PATH = '/reset-password';

export const ResetMessages = {
  linkGone: 'Reset link expired or not found',
  tokenRequired: 'token is required',
  memberNotFound: 'Member not found',
} as const;

/**
 * Password resets (spec §4): a link an Admin sends, valid 2 hours, used once; a newer link for the
 * member invalidates the earlier ones. A reset signs the member out everywhere and revokes every
 * PAT (the tokens.revoked / sessions.revoked events close their agents and sockets).
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly resets: PasswordResetRepository,
    private readonly transactions: TransactionRunner,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionsService,
    private readonly tokens: TokensService,
    private readonly invitations: InvitationsService,
    private readonly mail: MailService,
    private readonly publicUrl: PublicUrlService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly config: RelayConfig,
  ) {}

  async sendReset(actor: AuditActor, userId: number): Promise<SendResetResponse> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ResetMessages.memberNotFound);
    if (this.config.sso.only && !user.breakGlass) throw forbidden(SsoOnlyMessages.reset);
    const { token, hash } = newLinkToken();
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      await this.resets.deleteOf(userId, tx);
      await this.resets.insert({ userId, tokenHash: hash, createdAt: now, expiresAt: new Date(now.getTime() + RESET_TTL_MS), usedAt: null }, tx);
    });
    const resetUrl = this.publicUrl.link(RESET_PAGE_PATH, token);
    const emailSent = (await this.invitations.joinedWithoutEmail(userId))
      ? false
      : await this.mail.send(
          user.email,
          passwordResetMessage({
            teamName: await this.settings.teamName(),
            link: resetUrl,
            path: `${RESET_PAGE_PATH}?token=${token}`,
          }),
        );
    this.events.emit(AUDIT_EVENT, auditEvent(actor, 'password_reset.sent', `member:${userId}`, { email: user.email, email_sent: emailSent }));
    return { ok: true, emailSent, token, resetUrl };
  }

  /** The open reset link for a token, or null when unknown, expired, used, replaced, or its member inactive. */
  async findUsable(token: unknown): Promise<PasswordResetEntity | null> {
    const hash = linkTokenHash(token);
    const reset = hash ? await this.resets.findByHash(hash) : null;
    if (!reset || reset.usedAt || reset.expiresAt.getTime() <= this.clock.nowMs()) return null;
    // An inactive member has no way in (docs/identity.md "Offboarding is final"), a new password included.
    return (await this.users.findById(reset.userId))?.active ? reset : null;
  }

  /** Deletes every reset link of a member (deactivation). */
  async revokeAllFor(userId: number): Promise<void> {
    await this.resets.deleteOf(userId);
  }

  /** The open reset link for a token; 400 without one, 410 when unknown, expired, used or replaced. */
  async usable(token: unknown): Promise<PasswordResetEntity> {
    if (typeof token !== 'string' || !token) throw badRequest(ResetMessages.tokenRequired);
    const reset = await this.findUsable(token);
    if (!reset) throw gone(ResetMessages.linkGone);
    return reset;
  }

  /** Sets the new password; exactly one of parallel uses wins (conditional update), the others get 410. */
  async reset(token: string, password: string, clientAddress: string | null): Promise<void> {
    const reset = await this.usable(token);
    // A link sent before sso.only was switched on must not hand out a password after.
    if (this.config.sso.only && !(await this.users.findById(reset.userId))?.breakGlass) throw forbidden(SsoOnlyMessages.reset);
    const passwordHash = await this.hasher.hash(password);
    const now = this.clock.now();
    if (!(await this.resets.claim(reset.id, now))) throw gone(ResetMessages.linkGone);
    await this.users.setPasswordHash(reset.userId, passwordHash);
    await this.sessions.endAllFor(reset.userId);
    await this.tokens.revokeAllFor(reset.userId, 'password_reset');
    const user = await this.users.findById(reset.userId);
    this.events.emit(
      AUDIT_EVENT,
      auditEvent({ actorId: reset.userId, actorLabel: user?.email ?? `member ${reset.userId}`, via: 'anonymous', clientAddress }, 'password_reset.completed', `member:${reset.userId}`),
    );
  }

  /** Removes links that can no longer be used. */
  async purgeStale(): Promise<number> {
    return this.resets.deleteStale(this.clock.now());
  }
}
