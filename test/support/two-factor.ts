import { totpCode } from '../../src/two-factor/totp';
import { TEST_PASSWORD, type MemberFactory, type TestMember } from './factory';
import type { TestRelay } from './test-relay';

export const TOTP_STEP_MS = 30_000;

/** Puts the relay's clock 1 s into a 30-second step, so "one step ago" cannot slip to two while a request runs. */
export function alignTotpClock(relay: TestRelay): void {
  const into = relay.clock.nowMs() % TOTP_STEP_MS;
  relay.clock.advance(TOTP_STEP_MS - into + 1_000);
}

/** Turns two-factor sign-in on for the member through the profile routes; the secret and the recovery codes. */
export async function enrolTwoFactor(relay: TestRelay, members: MemberFactory, member: TestMember): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await members.as(member, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: TEST_PASSWORD }).expect(201);
  alignTotpClock(relay);
  const confirmed = await members
    .as(member, 'post', '/api/v1/profile/two-factor/confirm')
    .send({ code: totpCode(setup.body.secret, relay.clock.nowMs()) })
    .expect(200);
  return { secret: setup.body.secret, recoveryCodes: confirmed.body.recovery_codes };
}
