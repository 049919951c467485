import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * GET /auth/session (beyond the spec, docs/auth.md): the dashboard's first question, answered 200
 * whether signed in or not, so a signed-out first visit logs no failed request in the console.
 */
describe('GET /api/v1/auth/session', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
  });
  afterAll(() => relay.close());

  it('200 { me: null } without a cookie, with an unknown one, and with a PAT', async () => {
    expect((await relay.http().get('/api/v1/auth/session').expect(200)).body).toEqual({ me: null, two_factor_enrolment_required: false });
    expect((await relay.http().get('/api/v1/auth/session').set('Cookie', `svc_token=${'f'.repeat(64)}`).expect(200)).body).toEqual({ me: null, two_factor_enrolment_required: false });
    const admin = await members.admin();
    const pat = await members.pat(admin);
    expect((await members.withPat(pat, 'get', '/api/v1/auth/session').expect(200)).body).toEqual({ me: null, two_factor_enrolment_required: false });
  });

  it('200 { me } with /auth/me’s answer when signed in, and { me: null } after sign-out', async () => {
    const admin = await members.admin();
    const me = (await members.as(admin, 'get', '/api/v1/auth/me').expect(200)).body;
    expect((await members.as(admin, 'get', '/api/v1/auth/session').expect(200)).body).toEqual({ me, two_factor_enrolment_required: false });
    await members.as(admin, 'post', '/api/v1/auth/logout').expect(200);
    expect((await members.as(admin, 'get', '/api/v1/auth/session').expect(200)).body).toEqual({ me: null, two_factor_enrolment_required: false });
  });
});
