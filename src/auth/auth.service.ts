import { HttpStatus, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { actorOf, anonymousActor, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT, AuditEvent } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { ErrorMessages } from '../common/errors/error-messages';
import { badRequest, forbidden, HttpError, unauthorized } from '../common/errors/http-error';
import { SerialQueue } from '../common/serial-queue';
import { TwoFactorMessages, TwoFactorService } from '../two-factor/two-factor.service';
import { RelayConfig } from '../config/relay-config';
import { LdapDirectoryService } from '../identity/ldap-directory.service';
import { SsoMembersService } from '../identity/sso-members.service';
import { SsoRefusal } from '../identity/sso-refusal';
import type { UserEntity } from '../users/user.entity';
import { normalizeEmail, UsersService } from '../users/users.service';
import type { AuthStatusResponse } from './dto/auth-responses';
import { ssoOnlyMessage } from './sso-only';
import { LoginThrottleService } from './login-throttle.service';
import { ActiveSession, SessionsService } from './sessions.service';

/** What the password step leads to: a session, or (two-factor sign-in) a challenge for the code step. */
export type SignInOutcome = { role: Role; session: ActiveSession; challenge?: undefined } | { role: Role; challenge: string; session?: undefined };

/** Sign-in, first-admin creation and password change. */
@Injectable()
export class AuthService {
  /** Serialises first-admin creation so two parallel inits cannot both succeed. */
  private readonly initQueue = new SerialQueue();

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottleService,
    private readonly events: EventEmitter2,
    private readonly twoFactor: TwoFactorService,
    private readonly config: RelayConfig,
    private readonly directory: LdapDirectoryService,
    private readonly ssoMembers: SsoMembersService,
  ) {}

  async status(fromRelayHost: boolean): Promise<AuthStatusResponse> {
    const initialized = (await this.users.count()) > 0;
    const { oidc, ldap, only } = this.config.sso;
    const status = { initialized, canInitialize: !initialized && fromRelayHost };
    // Spec §4's shape stays exact for a relay without single sign-on.
    if (!oidc && !ldap) return status;
    return {
      ...status,
      methods: {
        password: !only,
        ldap: !!ldap,
        oidc: oidc ? { name: oidc.name, loginPath: '/api/v1/auth/oidc/login' } : null,
        ssoOnly: only,
      },
    };
  }

  /**
   * Creates the first Admin; 403 once any account exists, else 403 naming the CLI command when the
   * request is not from the relay host. Used by /auth/init and `svc admin init` (always local).
   */
  initialize(email: string, password: string, fromRelayHost = true): Promise<void> {
    return this.initQueue.run(async () => {
      if ((await this.users.count()) > 0) throw forbidden(ErrorMessages.alreadyInitialized);
      if (!fromRelayHost) throw forbidden(ErrorMessages.initNotFromHost);
      await this.users.create({ email, password, role: 'Admin', breakGlass: true });
    });
  }

  /**
   * The password step. A member with two-factor sign-in gets a challenge instead of a session (no
   * cookie yet), and the (address, e-mail) brake is not cleared until the code is right: guesses
   * of the code count with the password's.
   */
  async login(address: string, email: string, password: string): Promise<SignInOutcome> {
    // Busy password workers refuse before the brake counts an attempt: nothing was guessed.
    this.users.admitPasswordCheck();
    try {
      await this.throttle.beginAttempt(address, email);
    } catch (err) {
      this.signInFailed(email, address, 'throttled');
      throw err;
    }
    const { user, method, twoFactor } = await this.passwordSignIn(address, email, password);
    if (twoFactor ?? (await this.twoFactor.isEnabled(user.id))) {
      this.events.emit(
        AUDIT_EVENT,
        auditEvent({ actorId: user.id, actorLabel: user.email, via: 'anonymous', clientAddress: address }, 'auth.password_accepted', `member:${user.id}`),
      );
      return { role: user.role, challenge: await this.twoFactor.openChallenge(user.id, method) };
    }
    await this.throttle.recordSuccess(address, email);
    return { role: user.role, session: await this.signedIn(user, method, address, {}) };
  }

  /** The code step: a TOTP or recovery code for the challenge's member; throttled with the password. */
  async completeTwoFactor(address: string, challenge: string, code: string): Promise<{ role: Role; session: ActiveSession }> {
    const owner = await this.twoFactor.challengeOwner(challenge);
    const user = owner === null ? null : await this.users.findById(owner.userId);
    // Deactivated since the password step (or deleted): the challenge ends here, like an expired one.
    if (!owner || !user?.active) {
      if (owner !== null) await this.twoFactor.closeChallenge(challenge);
      throw unauthorized(TwoFactorMessages.challengeGone);
    }
    const actor = { actorId: user.id, actorLabel: user.email, via: 'anonymous' as const, clientAddress: address };
    try {
      await this.throttle.beginAttempt(address, user.email);
    } catch (err) {
      this.events.emit(AUDIT_EVENT, auditEvent(actor, 'auth.sign_in_failed', `member:${user.id}`, { reason: 'throttled', step: 'two_factor' }));
      throw err;
    }
    const factor = await this.twoFactor.checkSecondFactor(user.id, code);
    if (!factor) {
      this.events.emit(AUDIT_EVENT, auditEvent(actor, 'auth.sign_in_failed', `member:${user.id}`, { reason: 'invalid_code', step: 'two_factor' }));
      throw unauthorized(TwoFactorMessages.invalidCode);
    }
    await this.twoFactor.closeChallenge(challenge);
    await this.throttle.recordSuccess(address, user.email);
    return { role: user.role, session: await this.signedIn(user, owner.signInMethod, address, { second_factor: factor }) };
  }

  /** The password again before a new second factor (a guess like a sign-in: same brake, same bucket). */
  async beginTwoFactorSetup(address: string, principal: Principal, currentPassword: string): Promise<{ secret: string; uri: string }> {
    await this.throttle.beginAttempt(address, principal.email);
    const user = await this.users.verifyCredentials(principal.email, currentPassword);
    if (!user || user.id !== principal.userId) throw badRequest('Current password is incorrect');
    await this.throttle.recordSuccess(address, principal.email);
    return this.twoFactor.beginEnrolment(principal);
  }

  private async signedIn(user: { id: number; email: string }, method: SignInMethod, address: string, details: Record<string, string>): Promise<ActiveSession> {
    const session = await this.sessions.start(user.id, method);
    this.events.emit(
      AUDIT_EVENT,
      auditEvent({ actorId: user.id, actorLabel: user.email, via: 'cookie', clientAddress: address }, 'auth.sign_in', `member:${user.id}`, details),
    );
    return session;
  }

  /**
   * The sign-in form's e-mail and password: the LDAP directory first when `sso.ldap` is set (an
   * entry with that mail decides, right or wrong password), then the relay's own accounts, which
   * under `sso.only` admit break-glass members only. A directory that cannot be reached leaves the
   * relay's own accounts usable, so a break-glass Admin can still get in. Says which of the two
   * signed the member in: the session records it for the two-factor policy.
   */
  private async passwordSignIn(address: string, email: string, password: string): Promise<{ user: UserEntity; method: SignInMethod; twoFactor?: boolean }> {
    const answer = await this.directory.authenticate(email, password, address);
    if (answer.kind === 'member') {
      try {
        return { user: await this.ssoMembers.signIn(answer.identity), method: 'ldap' };
      } catch (err) {
        if (err instanceof SsoRefusal) throw forbidden(err.message);
        throw err;
      }
    }
    if (answer.kind === 'wrong-password') {
      this.events.emit(AUDIT_EVENT, new AuditEvent('auth.sign_in_failed', null, normalizeEmail(email), 'sso', null, address, { method: 'ldap', reason: 'wrong_password' }));
      throw unauthorized(ErrorMessages.invalidCredentials);
    }
    // Under sso.only the answer for everyone but break-glass members (unknown e-mails too) is the same
    // refusal, whatever the password: the form is no oracle for old local passwords.
    if (this.config.sso.only && !(await this.users.findByEmail(email))?.breakGlass) {
      this.signInFailed(email, address, 'sso_only');
      throw forbidden(ssoOnlyMessage(this.config));
    }
    // Whether the member has two-factor sign-in is read while bcrypt runs: one round trip off the sign-in.
    const verified = await this.users.verifyCredentialsWith(email, password, (member, on) => this.twoFactor.isEnabled(member.id, on));
    if (!verified) {
      this.signInFailed(email, address, answer.kind === 'unavailable' ? 'directory_unavailable' : 'invalid_credentials');
      if (answer.kind === 'unavailable') throw new HttpError(HttpStatus.SERVICE_UNAVAILABLE, ErrorMessages.directoryUnavailable);
      throw unauthorized(ErrorMessages.invalidCredentials);
    }
    return { user: verified.user, method: 'password', twoFactor: verified.alongside };
  }

  private signInFailed(email: string, address: string, reason: string): void {
    this.events.emit(AUDIT_EVENT, auditEvent(anonymousActor(email, address), 'auth.sign_in_failed', null, { reason }));
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.sessionId) await this.sessions.end(principal.sessionId, principal.userId);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'auth.sign_out', `member:${principal.userId}`));
  }

  /**
   * Sets a new password, ends every session of the member and opens a fresh one for this browser.
   * PATs survive. The current password is a password guess like a sign-in (a stolen cookie must not
   * become an unthrottled oracle for it): same brake, same (address, e-mail) bucket, 429 when blocked.
   */
  async changePassword(address: string, principal: Principal, currentPassword: string, newPassword: string): Promise<ActiveSession> {
    await this.throttle.beginAttempt(address, principal.email);
    const user = await this.users.verifyCredentials(principal.email, currentPassword);
    if (!user || user.id !== principal.userId) throw badRequest('Current password is incorrect');
    await this.throttle.recordSuccess(address, principal.email);
    await this.users.setPassword(user.id, newPassword);
    await this.sessions.endAllFor(user.id);
    // This browser's new session is still the sign-in it had: a password change proves no provider's factor, and takes none away.
    const session = await this.sessions.start(user.id, principal.signInMethod ?? 'password');
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'auth.password_changed', `member:${user.id}`));
    return session;
  }
}
