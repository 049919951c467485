import { totpCode } from '../../src/two-factor/totp';
import { MemberFactory, TEST_PASSWORD } from './factory';
import type { TestRelay } from './test-relay';

export const ENROLMENT_REQUIRED = { error: 'Two-factor sign-in is required: set it up on your profile page' };

/**
 * Runs `check` under a two-factor policy for everyone, then turns it off again. The first Admin sets
 * up their own second factor first when they have none (the policy cannot be required of their role before).
 */
export async function underPolicyForEveryone(relay: TestRelay, members: MemberFactory, check: () => Promise<void>): Promise<void> {
  const admin = await members.admin();
  if (!(await members.as(admin, 'get', '/api/v1/profile/two-factor').expect(200)).body.enabled) {
    const setup = await members.as(admin, 'post', '/api/v1/profile/two-factor/setup').send({ currentPassword: TEST_PASSWORD }).expect(201);
    relay.clock.advance(30_000 - (relay.clock.nowMs() % 30_000) + 1_000);
    await members.as(admin, 'post', '/api/v1/profile/two-factor/confirm').send({ code: totpCode(setup.body.secret, relay.clock.nowMs()) }).expect(200);
  }
  await members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'everyone' }).expect(200);
  try {
    await check();
  } finally {
    await members.as(admin, 'put', '/api/v1/settings/two-factor').send({ required_for: 'nobody' }).expect(200);
  }
}
