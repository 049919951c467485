import { UsersService } from '../../src/users/users.service';
import { auditEntries } from '../audit/audit-support';
import { MemberFactory, TEST_PASSWORD, type TestMember } from '../support/factory';
import { OidcStub } from '../support/oidc-stub';
import { oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const BREAK_GLASS_MESSAGE = 'Under sso.only at least one active Admin must keep break-glass password sign-in';

/**
 * The member guardrails hold on every path (docs/identity.md "SCIM and the last active Admin"):
 * under `sso.only` no path leaves the relay without an active break-glass Admin, and the last-Admin
 * check and the change are one step for every path at once (Team page, SCIM, SSO), not per path.
 */
describe('member guardrails', () => {
  let stub: OidcStub;
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    stub = await new OidcStub().start();
  });
  afterEach(() => relay.close());
  afterAll(() => stub.close());

  const start = async (only: boolean) => {
    relay = await startSsoRelay(
      {
        only,
        oidc: { issuer: stub.issuer, clientId: stub.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', roles: { Admin: ['relay-admins'], Developer: ['devs'] }, defaultRole: null },
      },
      { TEST_OIDC_SECRET: stub.clientSecret },
    );
    members = new MemberFactory(relay);
    admin = await members.admin();
  };
  const user = (id: number) => relay.app.get(UsersService).findById(id);

  describe('under sso.only, with one break-glass Admin and another Admin who is not', () => {
    let other: TestMember;
    beforeEach(async () => {
      await start(true);
      expect((await user(admin.id))!.breakGlass).toBe(true);
      const created = await relay.app.get(UsersService).create({ email: 'other@corp.example', password: TEST_PASSWORD, role: 'Admin' });
      // The other Admin signs in through OIDC (no password under sso.only) and acts on the Team page.
      stub.claims = { sub: 'other', email: created.email, email_verified: true, groups: ['relay-admins'] };
      const res = await oidcSignInWithoutBrowser(relay);
      expect(res.status).toBe(302);
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('svc_token='))!.split(';')[0];
      other = { id: created.id, email: created.email, password: TEST_PASSWORD, role: 'Admin', cookie };
    });

    it('the Team page refuses to demote or delete the only break-glass Admin (409); they keep their role', async () => {
      for (const [method, path, body] of [
        ['patch', `/api/v1/team/members/${admin.id}`, { role: 'Developer' }],
        ['delete', `/api/v1/team/members/${admin.id}`, undefined],
      ] as const) {
        const res = await members.as(other, method, path).send(body).expect(409);
        expect(res.body).toEqual({ error: BREAK_GLASS_MESSAGE });
      }
      // The break-glass Admin demoting themselves is the same demotion.
      expect((await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Viewer' }).expect(409)).body.error).toBe(BREAK_GLASS_MESSAGE);
      expect(await user(admin.id)).toMatchObject({ role: 'Admin', active: true, breakGlass: true });
      await relay.http().post('/api/v1/auth/login').send({ email: admin.email, password: TEST_PASSWORD }).expect(200);
      // With a second break-glass Admin the first may step down.
      await members.as(admin, 'put', `/api/v1/team/members/${other.id}/break-glass`).send({ break_glass: true }).expect(200);
      await members.as(other, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }).expect(200);
    });

    it('an OIDC claim that would demote the only break-glass Admin is skipped and audited; sign-in succeeds', async () => {
      stub.claims = { sub: 'boss', email: admin.email, email_verified: true, groups: ['relay-admins'] };
      expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
      stub.claims = { ...stub.claims, groups: ['devs'] };
      expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
      expect(await user(admin.id)).toMatchObject({ role: 'Admin', breakGlass: true });
      const skipped = await auditEntries({ relay, members }, admin, 'action=sso.role_update_skipped');
      expect(skipped.map((e) => e.details)).toEqual([{ role: 'Developer', reason: 'last_break_glass' }]);
      // The other Admin is no break-glass member: a claim demotes them as usual.
      stub.claims = { sub: 'other', email: other.email, email_verified: true, groups: ['devs'] };
      expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
      expect((await user(other.id))!.role).toBe('Developer');
    });
  });

  it('a Team page demotion and a SCIM deactivation of the two Admins at once never both succeed (20 rounds)', async () => {
    await start(false);
    const token = (await members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
    const scim = (method: 'post' | 'patch', path: string, body: object) =>
      relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/scim+json').send(JSON.stringify(body));
    const second = Number((await scim('post', '/Users', { schemas: [USER], userName: 'second@corp.example' }).expect(201)).body.id);
    const users = relay.app.get(UsersService);
    const active = (value: boolean) => ({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value }] });

    for (let round = 0; round < 20; round++) {
      await users.update(admin.id, { role: 'Admin' });
      await users.update(second, { role: 'Admin' });
      if (!(await user(second))!.active) await scim('patch', `/Users/${second}`, active(true)).expect(200);
      expect(await users.countActiveAdmins()).toBe(2);

      const [demotion, deactivation] = await Promise.all([
        members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }),
        scim('patch', `/Users/${second}`, active(false)),
      ]);
      expect([demotion.status, deactivation.status].sort()).toEqual([200, 409]);
      expect(await users.countActiveAdmins()).toBe(1);
      const refused = demotion.status === 409 ? demotion.body.error : JSON.parse(deactivation.text).detail;
      expect(refused).toMatch(/last (active )?Admin/);
    }
  }, 180_000);
});
