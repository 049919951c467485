import { UsersService } from '../../src/users/users.service';
import { MemberFactory, sessionCookieFrom, TEST_PASSWORD, type TestMember } from '../support/factory';
import { OidcStub } from '../support/oidc-stub';
import { oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

/**
 * `sso.only: true` (docs/identity.md): no password sign-in, reset or password invitation except for
 * break-glass members (the first Admin); PATs keep working, and go with their member.
 */
describe('sso.only', () => {
  let stub: OidcStub;
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    stub = await new OidcStub().start();
    relay = await startSsoRelay(
      {
        only: true,
        oidc: { issuer: stub.issuer, clientId: stub.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', name: 'Corp IdP', roles: { Developer: ['devs'] } },
      },
      { TEST_OIDC_SECRET: stub.clientSecret },
    );
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(async () => {
    await relay?.close();
    await stub?.close();
  });

  const ssoMember = async (sub: string): Promise<{ id: number; cookie: string }> => {
    stub.claims = { sub, email: `${sub}@corp.example`, email_verified: true, groups: ['devs'] };
    const res = await oidcSignInWithoutBrowser(relay);
    expect(res.status).toBe(302);
    const user = await relay.app.get(UsersService).findByEmail(`${sub}@corp.example`);
    return { id: user!.id, cookie: sessionCookieFrom(res.headers['set-cookie']) };
  };

  it('/auth/status tells the dashboard to offer single sign-on first', async () => {
    expect((await relay.http().get('/api/v1/auth/status').expect(200)).body.methods).toMatchObject({ password: false, ssoOnly: true, oidc: { name: 'Corp IdP' } });
  });

  it('the first Admin is break-glass and still signs in with a password', async () => {
    await relay.http().post('/api/v1/auth/login').send({ email: admin.email, password: TEST_PASSWORD }).expect(200);
  });

  it('any other member is refused password sign-in with a clear message, right password or not', async () => {
    await relay.app.get(UsersService).create({ email: 'local@corp.example', password: TEST_PASSWORD, role: 'Developer' });
    for (const password of [TEST_PASSWORD, 'wrong password!']) {
      const res = await relay.http().post('/api/v1/auth/login').send({ email: 'local@corp.example', password }).expect(403);
      expect(res.body.error).toBe(
        'This relay uses single sign-on only: password sign-in is turned off except for break-glass members. Use "Sign in with Corp IdP".',
      );
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('an Admin marks another member break-glass (then they sign in with a password), but never unmarks the last break-glass Admin', async () => {
    const local = await relay.app.get(UsersService).create({ email: 'oncall@corp.example', password: TEST_PASSWORD, role: 'Admin' });
    await relay.http().post('/api/v1/auth/login').send({ email: local.email, password: TEST_PASSWORD }).expect(403);
    await members.as(admin, 'put', `/api/v1/team/members/${local.id}/break-glass`).send({ break_glass: true }).expect(200);
    await relay.http().post('/api/v1/auth/login').send({ email: local.email, password: TEST_PASSWORD }).expect(200);
    await members.as(admin, 'put', `/api/v1/team/members/${local.id}/break-glass`).send({ break_glass: 'yes' }).expect(400);
    await members.as(admin, 'put', `/api/v1/team/members/${admin.id}/break-glass`).send({ break_glass: false }).expect(200);
    const last = await members.as(admin, 'put', `/api/v1/team/members/${local.id}/break-glass`).send({ break_glass: false }).expect(409);
    expect(last.body.error).toBe('Under sso.only at least one active Admin must keep break-glass password sign-in');
    await members.as(admin, 'put', `/api/v1/team/members/${admin.id}/break-glass`).send({ break_glass: true }).expect(200);
  });

  it('password resets are refused for members who are not break-glass, allowed for the break-glass Admin', async () => {
    const other = await ssoMember('reset-target');
    const refused = await members.as(admin, 'post', `/api/v1/team/members/${other.id}/send-reset`).expect(403);
    expect(refused.body.error).toContain('Password resets are turned off');
    await members.as(admin, 'post', `/api/v1/team/members/${admin.id}/send-reset`).expect(200);
  });

  it('invitations with passwords are refused', async () => {
    const res = await members.as(admin, 'post', '/api/v1/team/invite').send({ email: 'new@corp.example', role: 'QA' }).expect(403);
    expect(res.body.error).toContain('Invitations with passwords are turned off');
  });

  it('PATs keep working, and are revoked with their member', async () => {
    const dev = await ssoMember('pat-owner');
    const { body } = await relay.http().post('/api/v1/tokens').set('Cookie', dev.cookie).send({ name: 'ci' }).expect(201);
    await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${body.token}`).expect(200);
    await members.as(admin, 'delete', `/api/v1/team/members/${dev.id}`).expect((res) => expect([200, 204]).toContain(res.status));
    await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${body.token}`).expect(401);
  });
});
