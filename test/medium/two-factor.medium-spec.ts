import type { Principal } from '../../src/common/auth/principal';
import { totpCode } from '../../src/two-factor/totp';
import { TwoFactorModule } from '../../src/two-factor/two-factor.module';
import { CHALLENGE_MAX_ATTEMPTS, CHALLENGE_TTL_MS, TwoFactorService } from '../../src/two-factor/two-factor.service';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';
import { useMediumDatabase } from './medium-database';

const STEP_MS = 30_000;

describe('TwoFactorService and TwoFactorRepository on the database (medium)', () => {
  const db = useMediumDatabase({ imports: [UsersModule, TwoFactorModule] });
  const twoFactor = () => db().get(TwoFactorService);
  const principalOf = async (email: string, role: Principal['role'] = 'Developer'): Promise<Principal> => {
    const user = await db().get(UsersService).create({ email, password: 'x', role });
    return { userId: user.id, email, role, via: 'session' } as unknown as Principal;
  };
  /** 1 s into a 30-second step, so the code of "now" stays the code of the step while the test runs. */
  const alignClock = () => db().clock.advance(STEP_MS - (db().clock.nowMs() % STEP_MS) + 1_000);

  it('enrols (a new secret replaces an unconfirmed one), confirms with a code, and each code and recovery code works once', async () => {
    const ada = await principalOf('ada@example.com');
    expect(await twoFactor().status(ada.userId)).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    await twoFactor().beginEnrolment(ada);
    const { secret } = await twoFactor().beginEnrolment(ada);
    alignClock();
    const codes = await twoFactor().confirmEnrolment(ada, totpCode(secret, db().clock.nowMs()));
    expect(codes).toHaveLength(10);
    expect(await twoFactor().status(ada.userId)).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    expect(await twoFactor().checkSecondFactor(ada.userId, totpCode(secret, db().clock.nowMs()))).toBeNull();
    db().clock.advance(STEP_MS);
    expect(await twoFactor().checkSecondFactor(ada.userId, totpCode(secret, db().clock.nowMs()))).toBe('totp');
    expect(await twoFactor().checkSecondFactor(ada.userId, codes[0].toUpperCase())).toBe('recovery_code');
    expect(await twoFactor().checkSecondFactor(ada.userId, codes[0])).toBeNull();
    expect((await twoFactor().status(ada.userId)).recoveryCodesLeft).toBe(9);
    await expect(twoFactor().beginEnrolment(ada)).rejects.toMatchObject({ status: 409 });

    await twoFactor().disable(ada, codes[1]);
    expect(await twoFactor().status(ada.userId)).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    expect(await db().rows(`SELECT id FROM two_factor_recovery_codes WHERE user_id = ${ada.userId}`)).toEqual([]);
  });

  it('resets a member, 404 when they have none', async () => {
    const admin = await principalOf('admin@example.com', 'Admin');
    const bob = await principalOf('bob@example.com');
    await expect(twoFactor().resetFor(admin, bob.userId)).rejects.toMatchObject({ status: 404 });
    const { secret } = await twoFactor().beginEnrolment(bob);
    alignClock();
    await twoFactor().confirmEnrolment(bob, totpCode(secret, db().clock.nowMs()));
    await twoFactor().resetFor(admin, bob.userId);
    expect(await twoFactor().isEnabled(bob.userId)).toBe(false);
  });

  it('challenges: owned, counted up to the limit, expired ones gone, closed by token or by member', async () => {
    const carol = await principalOf('carol@example.com');
    const token = await twoFactor().openChallenge(carol.userId, 'ldap');
    for (let i = 0; i < CHALLENGE_MAX_ATTEMPTS; i++) expect(await twoFactor().challengeOwner(token)).toEqual({ userId: carol.userId, signInMethod: 'ldap' });
    expect(await twoFactor().challengeOwner(token)).toBeNull();

    const closed = await twoFactor().openChallenge(carol.userId, 'password');
    await twoFactor().closeChallenge(closed);
    expect(await twoFactor().challengeOwner(closed)).toBeNull();
    const ofMember = [await twoFactor().openChallenge(carol.userId, 'password'), await twoFactor().openChallenge(carol.userId, 'password')];
    await twoFactor().closeChallengesOf(carol.userId);
    for (const t of ofMember) expect(await twoFactor().challengeOwner(t)).toBeNull();

    const old = await twoFactor().openChallenge(carol.userId, 'password');
    db().clock.advance(CHALLENGE_TTL_MS + 1);
    expect(await twoFactor().challengeOwner(old)).toBeNull();
    const stale = await twoFactor().openChallenge(carol.userId, 'password');
    db().clock.advance(CHALLENGE_TTL_MS + 1);
    await twoFactor().openChallenge(carol.userId, 'password');
    expect(await db().rows(`SELECT id FROM two_factor_challenges WHERE user_id = ${carol.userId}`)).toHaveLength(1);
    expect(stale).not.toBe(old);
  });

  it('the policy: read from its row, changed, and refused for an Admin without a second factor', async () => {
    const admin = await principalOf('root@example.com', 'Admin');
    expect(await twoFactor().requirement()).toBe('nobody');
    await expect(twoFactor().setRequirement(admin, 'admins')).rejects.toMatchObject({ status: 409 });
    const { secret } = await twoFactor().beginEnrolment(admin);
    alignClock();
    await twoFactor().confirmEnrolment(admin, totpCode(secret, db().clock.nowMs()));
    await twoFactor().setRequirement(admin, 'admins');
    expect(await twoFactor().requirement()).toBe('admins');
    expect(await twoFactor().mustKeep('Admin')).toBe(true);
    expect(await twoFactor().mustEnrol(admin.userId, 'Admin')).toBe(false);
    expect(await db().rows('SELECT required_for FROM two_factor_policy')).toEqual([{ required_for: 'admins' }]);
  });
});
