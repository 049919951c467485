import { TwoFactorService } from '../../src/two-factor/two-factor.service';
import { totpCode } from '../../src/two-factor/totp';
import { PasswordHasher } from '../../src/users/password-hasher';
import { sessionCookieFrom, TEST_PASSWORD, TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';
import { auditEntries } from '../audit/audit-support';

const STEP = 30_000;

describe('two-factor sign-in (TOTP, recovery codes, policy)', () => {
  const ctx = useTestRelay();

  /** Puts the relay's clock 1 s into a 30-second step, so "one step ago" cannot slip to two while a request runs. */
  function alignClock(): void {
    const into = ctx.relay.clock.nowMs() % STEP;
    ctx.relay.clock.advance(STEP - into + 1_000);
  }

  async function enrol(member: TestMember): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await ctx.members.as(member, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: TEST_PASSWORD }).expect(201);
    const { secret, otpauth_uri: uri } = setup.body;
    expect(uri).toBe(`otpauth://totp/svc%20relay:${encodeURIComponent(member.email)}?secret=${secret}&period=30&digits=6&algorithm=SHA1&issuer=svc%20relay`);
    alignClock();
    const confirmed = await ctx.members
      .as(member, 'post', '/api/v1/profile/two-factor/confirm')
      .send({ code: totpCode(secret, ctx.relay.clock.nowMs()) })
      .expect(200);
    return { secret, recoveryCodes: confirmed.body.recovery_codes };
  }

  async function password(member: TestMember): Promise<string> {
    const res = await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    expect(res.body).toMatchObject({ ok: true, two_factor_required: true });
    expect(res.headers['set-cookie']).toBeUndefined();
    return res.body.challenge;
  }

  const secondStep = (challenge: string, code: string) => ctx.relay.http().post('/api/v1/auth/login/two-factor').send({ challenge, code });

  it('enrols from the profile: a secret and its QR URI, a code to confirm, ten recovery codes shown once', async () => {
    const dev = await ctx.members.member('Developer');
    const before = await ctx.members.as(dev, 'get', '/api/v1/profile/two-factor').expect(200);
    expect(before.body).toEqual({ enabled: false, recovery_codes_left: 0, required: false });
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/confirm').send({ code: '123456' }).expect(400, { error: 'Start the set-up first' });
    // The password again first: a borrowed session cannot put its own authenticator on the account.
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/setup').send({}).expect(400, { error: 'currentPassword is required' });
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: 'not it at all' }).expect(400, { error: 'Current password is incorrect' });
    const setup = await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: TEST_PASSWORD }).expect(201);
    const wrong = totpCode(setup.body.secret, ctx.relay.clock.nowMs() + 10 * STEP);
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/confirm').send({ code: wrong }).expect(400, { error: 'Invalid code' });
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/confirm').send({}).expect(400, { error: 'code is required' });
    const { recoveryCodes } = await enrol(dev);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const after = await ctx.members.as(dev, 'get', '/api/v1/profile/two-factor').expect(200);
    expect(after.body).toEqual({ enabled: true, recovery_codes_left: 10, required: false });
    await ctx.members.as(dev, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: TEST_PASSWORD }).expect(409);
  });

  it('asks for the code after the password, sets no cookie before it, and takes each code once', async () => {
    const qa = await ctx.members.member('QA');
    const { secret } = await enrol(qa);
    ctx.relay.clock.advance(STEP); // the enrolment's code is used; the next step's is fresh
    const challenge = await password(qa);
    const code = totpCode(secret, ctx.relay.clock.nowMs());
    const ok = await secondStep(challenge, code).expect(200);
    expect(ok.body).toEqual({ ok: true, role: 'QA' });
    const cookie = sessionCookieFrom(ok.headers['set-cookie']);
    await ctx.relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200);
    // The challenge is spent, and the same code is refused on a new one (replay).
    await secondStep(challenge, code).expect(401, { error: 'Sign-in expired: enter your password again' });
    await secondStep(await password(qa), code).expect(401, { error: 'Invalid code' });
    await secondStep('not-a-challenge', code).expect(401, { error: 'Sign-in expired: enter your password again' });
    await ctx.relay.http().post('/api/v1/auth/login/two-factor').send({ challenge: 'x' }).expect(400, { error: 'code is required' });
  });

  it('reads whether the member has two-factor while the password is checked, and a wrong password still gets no challenge', async () => {
    const qa = await ctx.members.member('QA');
    await enrol(qa);
    const order: string[] = [];
    const hasher = ctx.relay.app.get(PasswordHasher);
    const verify = hasher.verify.bind(hasher);
    const twoFactor = ctx.relay.app.get(TwoFactorService);
    const isEnabled = twoFactor.isEnabled.bind(twoFactor);
    const spies = [
      jest.spyOn(hasher, 'verify').mockImplementation(async (...args) => {
        order.push('password check started');
        const matches = await verify(...args);
        order.push('password check ended');
        return matches;
      }),
      jest.spyOn(twoFactor, 'isEnabled').mockImplementation(async (id) => {
        order.push('two-factor lookup started');
        return isEnabled(id);
      }),
    ];
    try {
      await password(qa);
      expect(order).toEqual(['password check started', 'two-factor lookup started', 'password check ended']);
      const wrong = await ctx.relay.http().post('/api/v1/auth/login').send({ email: qa.email, password: 'not the password' });
      expect([wrong.status, wrong.body, wrong.headers['set-cookie']]).toEqual([401, { error: 'Invalid email or password' }, undefined]);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
  });

  it('accepts a code one step early or late, and refuses two steps (a skewed phone clock)', async () => {
    // Two members: wrong codes count towards the sign-in brake, and a used step makes earlier ones stale.
    const late = await ctx.members.member('Viewer');
    const early = await ctx.members.member('Viewer');
    const lateSecret = (await enrol(late)).secret;
    const earlySecret = (await enrol(early)).secret;
    ctx.relay.clock.advance(10 * STEP);
    alignClock();
    const now = () => ctx.relay.clock.nowMs();
    await secondStep(await password(late), totpCode(lateSecret, now() - STEP)).expect(200);
    await secondStep(await password(early), totpCode(earlySecret, now() + STEP)).expect(200);
    const skewed = await ctx.members.member('Viewer');
    const skewedSecret = (await enrol(skewed)).secret;
    ctx.relay.clock.advance(10 * STEP);
    alignClock();
    await secondStep(await password(skewed), totpCode(skewedSecret, now() - 2 * STEP)).expect(401, { error: 'Invalid code' });
    await secondStep(await password(skewed), totpCode(skewedSecret, now() + 2 * STEP)).expect(401, { error: 'Invalid code' });
  });

  it('takes a recovery code once, in any case and spacing', async () => {
    const member = await ctx.members.member('Developer');
    const { recoveryCodes } = await enrol(member);
    const [first] = recoveryCodes;
    await secondStep(await password(member), ` ${first.toUpperCase().replace('-', ' ')} `).expect(200);
    await secondStep(await password(member), first).expect(401, { error: 'Invalid code' });
    const second = await secondStep(await password(member), recoveryCodes[1]).expect(200);
    const status = await ctx.members.as({ ...member, cookie: sessionCookieFrom(second.headers['set-cookie']) }, 'get', '/api/v1/profile/two-factor');
    expect(status.body.recovery_codes_left).toBe(8);
    const entries = await auditEntries(ctx, await ctx.members.admin(), `action=auth.sign_in&actor=${member.id}`);
    expect(entries[0].details).toEqual({ second_factor: 'recovery_code' });
  });

  it("an Admin turns a member's two-factor off (lost phone): the password alone signs in again", async () => {
    const admin = await ctx.members.admin();
    const member = await ctx.members.member('QA');
    await enrol(member);
    await ctx.members.as(member, 'delete', `/api/v1/team/members/${member.id}/two-factor`).expect(403);
    await ctx.members.as(admin, 'delete', `/api/v1/team/members/${member.id}/two-factor`).expect(200, { ok: true });
    await ctx.members.as(admin, 'delete', `/api/v1/team/members/${member.id}/two-factor`).expect(404, { error: 'This member has no two-factor sign-in' });
    const login = await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    expect(login.body).toEqual({ ok: true, role: 'QA' });
    const reset = await auditEntries(ctx, admin, `action=auth.two_factor_reset&target=member:${member.id}`);
    expect(reset[0]).toMatchObject({ actor_id: admin.id });
  });

  it('brakes code guessing like password guessing: the fifth wrong try in the pair is the last, then 429', async () => {
    const member = await ctx.members.member('QA');
    const { secret } = await enrol(member);
    ctx.relay.clock.advance(STEP);
    const challenge = await password(member); // attempt 1 of the (address, e-mail) pair
    const wrong = totpCode(secret, ctx.relay.clock.nowMs() + 5 * STEP);
    for (let i = 0; i < 4; i++) await secondStep(challenge, wrong).expect(401); // attempts 2–5
    // Now even the right code, and the password, are refused for 15 minutes.
    const blocked = await secondStep(challenge, totpCode(secret, ctx.relay.clock.nowMs()));
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
    await ctx.relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(429);
    const failures = await auditEntries(ctx, await ctx.members.admin(), `action=auth.sign_in_failed&actor=${encodeURIComponent(member.email)}`);
    expect(failures.map((f) => f.details.reason)).toEqual(expect.arrayContaining(['invalid_code', 'throttled']));
  });

  it("an Admin's policy sends members without it to enrolment; turning it off needs a code and is refused where required", async () => {
    const admin = await ctx.members.admin();
    const dev = await ctx.members.member('Developer');
    const pat = await ctx.members.pat(dev, 'view');
    await ctx.members.as(dev, 'put', '/api/v1/settings/two-factor').send({ required_for: 'nobody' }).expect(403);
    await ctx.members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'sometimes' }).expect(400, {
      error: 'required_for must be one of nobody, admins, everyone',
    });
    // Not of their own role before they have it themselves (they would be held at enrolment).
    await ctx.members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'admins' }).expect(409, {
      error: 'Set up two-factor sign-in for yourself before requiring it of your role',
    });
    await enrol(admin);
    await ctx.members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'admins' }).expect(200, { required_for: 'admins' });
    await ctx.members.as(dev, 'get', '/api/v1/apps').expect(200);
    // Another Admin without a second factor is now held at enrolment.
    const second = await ctx.members.member('Admin');
    await ctx.members.as(second, 'get', '/api/v1/team/members').expect(403, { error: 'Two-factor sign-in is required: set it up on your profile page' });
    const session = await ctx.members.as(second, 'get', '/api/v1/auth/session').expect(200);
    expect(session.body.two_factor_enrolment_required).toBe(true);
    await ctx.members.as(second, 'get', '/api/v1/profile/two-factor').expect(200, { enabled: false, recovery_codes_left: 0, required: true });
    await ctx.members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'everyone' }).expect(200);
    await ctx.members.as(dev, 'get', '/api/v1/apps').expect(403, { error: 'Two-factor sign-in is required: set it up on your profile page' });
    await ctx.members.withPat(pat, 'get', '/api/v1/apps').expect(200); // PATs are their own credential
    await ctx.members.as(dev, 'get', '/api/v1/auth/me').expect(200);
    const { secret } = await enrol(dev);
    await ctx.members.as(dev, 'get', '/api/v1/apps').expect(200);
    await ctx.members.as(dev, 'delete', '/api/v1/profile/two-factor').send({ code: totpCode(secret, ctx.relay.clock.nowMs()) }).expect(409, {
      error: 'Two-factor sign-in is required for your role; it cannot be turned off',
    });
    await ctx.members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'nobody' }).expect(200);
    await ctx.members.as(dev, 'delete', '/api/v1/profile/two-factor').send({ code: '000000' }).expect(400, { error: 'Invalid code' });
    ctx.relay.clock.advance(STEP);
    await ctx.members.as(dev, 'delete', '/api/v1/profile/two-factor').send({ code: totpCode(secret, ctx.relay.clock.nowMs()) }).expect(200);
    const relogin = await ctx.relay.http().post('/api/v1/auth/login').send({ email: dev.email, password: TEST_PASSWORD }).expect(200);
    expect(relogin.body).toEqual({ ok: true, role: 'Developer' });

    const actions = (await auditEntries(ctx, { ...admin, cookie: admin.cookie }, `target=member:${dev.id}`)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['auth.two_factor_enabled', 'auth.two_factor_disabled']));
    const policy = await auditEntries(ctx, admin, 'action=settings.two_factor_policy_changed');
    expect(policy.map((e) => e.details.to)).toEqual(['nobody', 'everyone', 'admins']);
  });
});
