import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

describe('foundation smoke', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
  });
  afterAll(() => relay.close());

  it('errors are { error } bodies', async () => {
    const res = await relay.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{bad');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body' });
    const nf = await relay.http().get('/api/v1/nowhere');
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ error: 'Not found' });
  });

  it('signs in and reads /auth/me', async () => {
    const admin = await members.admin();
    const me = await members.as(admin, 'get', '/api/v1/auth/me').expect(200);
    expect(me.body).toEqual({ id: admin.id, email: admin.email, displayName: 'admin', avatarUrl: null, role: 'Admin' });
    const pat = await members.pat(admin);
    await members.withPat(pat, 'get', '/api/v1/auth/me').expect(401);
    const list = await members.as(admin, 'get', '/api/v1/tokens').expect(200);
    expect(list.body).toHaveLength(1);
  });
});
