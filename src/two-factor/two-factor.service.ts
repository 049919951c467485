import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomBytes } from 'node:crypto';
import { actorOf, auditEvent } from '../audit/audit-actor';
import { AUDIT_EVENT } from '../audit/audit-event';
import type { Principal } from '../common/auth/principal';
import type { Role } from '../common/auth/role';
import type { SignInMethod } from '../common/auth/sign-in-method';
import { Clock } from '../common/clock';
import { randomBase64Url, sha256Hex } from '../common/crypto/secret-token';
import { badRequest, conflict, notFound } from '../common/errors/http-error';
import { andThen, type Sometimes } from '../common/sometimes';
import { MINUTE_MS } from '../common/time';
import { TransactionRunner } from '../database/transaction-runner';
import type { Sql } from '../database/sql';
import { newTotpSecret, totpStep, totpUri } from './totp';
import type { TwoFactorRequirement } from './two-factor.entities';
import { TwoFactorRepository } from './two-factor.repository';

export const RECOVERY_CODE_COUNT = 10;
/** Between the password and the code: long enough to open the app, short enough to be useless later. */
export const CHALLENGE_TTL_MS = 5 * MINUTE_MS;
/** Codes one challenge may try; the (address, e-mail) brake of the password applies as well. */
export const CHALLENGE_MAX_ATTEMPTS = 5;
const ISSUER = 'svc relay';
const POLICY_CACHE_MS = 5_000;

export const TwoFactorMessages = {
  invalidCode: 'Invalid code',
  challengeGone: 'Sign-in expired: enter your password again',
  alreadyOn: 'Two-factor sign-in is already on; turn it off first',
  notStarted: 'Start the set-up first',
  notOn: 'Two-factor sign-in is off',
  requiredForRole: 'Two-factor sign-in is required for your role; it cannot be turned off',
  enrolmentRequired: 'Two-factor sign-in is required: set it up on your profile page',
  noneForMember: 'This member has no two-factor sign-in',
  enrolYourselfFirst: 'Set up two-factor sign-in for yourself before requiring it of your role',
} as const;

export type SecondFactor = 'totp' | 'recovery_code';

/** TOTP credentials, recovery codes, pending sign-ins and the team's policy (docs/auth.md "Two-factor sign-in"). */
@Injectable()
export class TwoFactorService {
  private cachedPolicy: { value: TwoFactorRequirement; until: number } | null = null;

  constructor(
    private readonly rows: TwoFactorRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  /** `on`: the connection the caller's other statements hold (a sign-in's), else any. */
  async isEnabled(userId: number, on?: Sql): Promise<boolean> {
    return !!(await this.rows.credentialOf(userId, on))?.enabledAt;
  }

  async status(userId: number): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const enabled = await this.isEnabled(userId);
    const recoveryCodesLeft = enabled ? await this.rows.unusedCodeCount(userId) : 0;
    return { enabled, recoveryCodesLeft };
  }

  /** A new secret for the member to scan; replaces an unconfirmed one. 409 while one is on. */
  async beginEnrolment(principal: Principal): Promise<{ secret: string; uri: string }> {
    if (await this.isEnabled(principal.userId)) throw conflict(TwoFactorMessages.alreadyOn);
    const secret = newTotpSecret();
    await this.rows.putUnconfirmedCredential(principal.userId, secret, this.clock.now());
    return { secret, uri: totpUri(principal.email, ISSUER, secret) };
  }

  /** The first code from the app turns it on; answers the recovery codes, shown once. */
  async confirmEnrolment(principal: Principal, code: string): Promise<string[]> {
    const credential = await this.rows.credentialOf(principal.userId);
    if (!credential) throw badRequest(TwoFactorMessages.notStarted);
    if (credential.enabledAt) throw conflict(TwoFactorMessages.alreadyOn);
    const step = totpStep(code, credential.secret, this.clock.nowMs());
    if (step === null) throw badRequest(TwoFactorMessages.invalidCode);
    const recoveryCodes = newRecoveryCodes();
    await this.transactions.run(async (tx) => {
      await this.rows.enableCredential(principal.userId, this.clock.now(), step, tx);
      await this.rows.replaceCodes(
        principal.userId,
        recoveryCodes.map((c) => sha256Hex(normalizeRecoveryCode(c))),
        tx,
      );
    });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'auth.two_factor_enabled', `member:${principal.userId}`));
    return recoveryCodes;
  }

  /** Off again, proven with a current code or a recovery code; refused where the policy requires it. */
  async disable(principal: Principal, code: string): Promise<void> {
    if (!(await this.isEnabled(principal.userId))) throw conflict(TwoFactorMessages.notOn);
    if (this.applies(await this.requirement(), principal.role)) throw conflict(TwoFactorMessages.requiredForRole);
    if (!(await this.checkSecondFactor(principal.userId, code))) throw badRequest(TwoFactorMessages.invalidCode);
    await this.transactions.run(async (tx) => {
      await this.rows.deleteCodes(principal.userId, tx);
      await this.rows.deleteCredential(principal.userId, tx);
    });
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'auth.two_factor_disabled', `member:${principal.userId}`));
  }

  /**
   * An Admin turns a member's two-factor sign-in off (a lost phone and lost recovery codes); the
   * member signs in with the password alone until they set it up again (or the policy sends them to).
   */
  async resetFor(actor: Principal, userId: number): Promise<void> {
    const removed = await this.transactions.run(async (tx) => {
      await this.rows.deleteCodes(userId, tx);
      return this.rows.deleteCredential(userId, tx);
    });
    if (!removed) throw notFound(TwoFactorMessages.noneForMember);
    this.events.emit(AUDIT_EVENT, auditEvent(actorOf(actor), 'auth.two_factor_reset', `member:${userId}`));
  }

  /**
   * A current TOTP code (not used before) or an unused recovery code of the member; each succeeds
   * once, even when two requests bring it at the same moment (conditional updates).
   */
  async checkSecondFactor(userId: number, rawCode: string): Promise<SecondFactor | null> {
    const credential = await this.rows.credentialOf(userId);
    if (!credential?.enabledAt) return null;
    const code = rawCode.replace(/\s+/g, '');
    const step = totpStep(code, credential.secret, this.clock.nowMs());
    if (step !== null) {
      return (await this.rows.claimStep(userId, step)) ? 'totp' : null;
    }
    const normalized = normalizeRecoveryCode(code);
    if (normalized.length !== 10) return null;
    return (await this.rows.useCode(userId, sha256Hex(normalized), this.clock.now())) ? 'recovery_code' : null;
  }

  /** A pending sign-in for a member whose password was right; the token goes back to the browser, never a cookie. */
  async openChallenge(userId: number, signInMethod: SignInMethod): Promise<string> {
    const token = randomBase64Url(32);
    await this.rows.deleteChallenges({ expiredBefore: this.clock.now() });
    await this.rows.insertChallenge({
      tokenHash: sha256Hex(token),
      userId,
      expiresAt: new Date(this.clock.nowMs() + CHALLENGE_TTL_MS),
      attempts: 0,
      signInMethod,
    });
    return token;
  }

  /** The member a live challenge belongs to and how they passed the first step, counting this attempt; null when unknown, expired or used up. */
  async challengeOwner(token: string): Promise<{ userId: number; signInMethod: SignInMethod } | null> {
    if (typeof token !== 'string' || token.length > 100) return null;
    const challenge = await this.rows.challengeByHash(sha256Hex(token));
    if (!challenge) return null;
    if (challenge.expiresAt.getTime() <= this.clock.nowMs() || challenge.attempts >= CHALLENGE_MAX_ATTEMPTS) {
      await this.rows.deleteChallenges({ id: challenge.id });
      return null;
    }
    const counted = await this.rows.countAttempt(challenge.id, challenge.attempts);
    return counted ? { userId: challenge.userId, signInMethod: challenge.signInMethod } : null;
  }

  async closeChallenge(token: string): Promise<void> {
    await this.rows.deleteChallenges({ tokenHash: sha256Hex(token) });
  }

  /** Ends every pending sign-in of a member (deactivation: a password step done before it leads nowhere). */
  async closeChallengesOf(userId: number): Promise<void> {
    await this.rows.deleteChallenges({ userId });
  }

  /**
   * Read on every cookie request (mustEnrol), so kept for POLICY_CACHE_MS; a change made here is seen
   * here at once, on other instances within that time.
   */
  requirement(): Sometimes<TwoFactorRequirement> {
    const now = Date.now();
    if (this.cachedPolicy && this.cachedPolicy.until > now) return this.cachedPolicy.value;
    return this.readRequirement(now);
  }

  private async readRequirement(now: number): Promise<TwoFactorRequirement> {
    const value = (await this.rows.requirement()) ?? 'nobody';
    this.cachedPolicy = { value, until: now + POLICY_CACHE_MS };
    return value;
  }

  /** An Admin cannot require of their own role what they have not set up: they would lock themself out of this page. */
  async setRequirement(principal: Principal, requiredFor: TwoFactorRequirement): Promise<void> {
    if (this.applies(requiredFor, principal.role) && !(await this.isEnabled(principal.userId))) throw conflict(TwoFactorMessages.enrolYourselfFirst);
    const before = await this.requirement();
    await this.rows.setRequirement(requiredFor);
    this.cachedPolicy = null;
    if (before !== requiredFor) {
      this.events.emit(AUDIT_EVENT, auditEvent(actorOf(principal), 'settings.two_factor_policy_changed', 'settings:two_factor', { from: before, to: requiredFor }));
    }
  }

  /** The policy requires a second factor of this role (so it cannot be turned off). */
  async mustKeep(role: Role): Promise<boolean> {
    return this.applies(await this.requirement(), role);
  }

  /**
   * True when the policy requires a second factor of this member and they have none yet. Asked on
   * every cookie request: where the policy does not apply to the role (the common case), answered at once.
   */
  mustEnrol(userId: number, role: Role): Sometimes<boolean> {
    return andThen(this.requirement(), (requirement) => (this.applies(requirement, role) ? this.isEnabled(userId).then((enabled) => !enabled) : false));
  }

  private applies(requirement: TwoFactorRequirement, role: Role): boolean {
    return requirement === 'everyone' || (requirement === 'admins' && role === 'Admin');
  }
}

/** Ten characters a–z and 2–7 (base32), shown as two groups of five. */
function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...randomBytes(10)].map((b) => alphabet[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z2-7]/g, '');
}
