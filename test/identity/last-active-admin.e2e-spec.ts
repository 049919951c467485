import { UsersService } from '../../src/users/users.service';
import { MemberFactory, type TestMember } from '../support/factory';
import { OidcStub } from '../support/oidc-stub';
import { oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * The last-Admin rule counts **active** Admins (issue 36, docs/identity.md "SCIM and the last
 * active Admin"): a deactivated Admin cannot sign in, so the team would be locked out. Each test
 * starts from a relay where a second Admin exists but is deactivated (through SCIM, the only way),
 * so a count of every Admin says 2 where the team has 1.
 */
describe('the last active Admin', () => {
  let stub: OidcStub;
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let token: string;

  beforeAll(async () => {
    stub = await new OidcStub().start();
  });
  beforeEach(async () => {
    relay = await startSsoRelay(
      { oidc: { issuer: stub.issuer, clientId: stub.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'] }, defaultRole: null } },
      { TEST_OIDC_SECRET: stub.clientSecret },
    );
    members = new MemberFactory(relay);
    admin = await members.admin();
    token = (await members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
  });
  afterEach(() => relay.close());
  afterAll(() => stub.close());

  const scim = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const req = relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${token}`);
    return body ? req.set('Content-Type', 'application/scim+json').send(JSON.stringify(body)) : req;
  };
  const scimUser = async (email: string): Promise<number> => Number((await scim('post', '/Users', { schemas: [USER], userName: email }).expect(201)).body.id);
  const role = async (id: number) => (await relay.app.get(UsersService).findById(id))!.role;
  const deactivate = (id: number) => scim('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });

  /** SCIM Admins `emails` through a relay-admins group, the last of them deactivated. */
  const adminsWithLastDeactivated = async (...emails: string[]) => {
    const ids = await Promise.all(emails.map(scimUser));
    const group = (await scim('post', '/Groups', { schemas: [GROUP], displayName: 'relay-admins', members: ids.map((id) => ({ value: String(id) })) }).expect(201)).body;
    for (const id of ids) expect(await role(id)).toBe('Admin');
    await deactivate(ids[ids.length - 1]).expect(200);
    return { ids, groupId: group.id as string };
  };

  it('SCIM: a group change that would demote the last active Admin is 409 mutability; role and group stay', async () => {
    const { ids, groupId } = await adminsWithLastDeactivated('boss@corp.example', 'gone@corp.example');
    await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }).expect(200);
    const [boss] = ids;

    const res = await scim('patch', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${boss}"]` }] }).expect(409);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(JSON.parse(res.text)).toMatchObject({ status: '409', scimType: 'mutability', detail: expect.stringContaining('last active Admin') });
    expect(await role(boss)).toBe('Admin');
    const group = JSON.parse((await scim('get', `/Groups/${groupId}`).expect(200)).text);
    expect(group.members.map((m: { value: string }) => Number(m.value)).sort()).toEqual([...ids].sort());
    // Deleting the group or renaming it to a name that maps to no role is the same demotion.
    await scim('delete', `/Groups/${groupId}`).expect(409);
    await scim('patch', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'renamed' }] }).expect(409);
    expect(await role(boss)).toBe('Admin');
  });

  it('SCIM: DELETE and deactivation of the last active Admin are 409 mutability; the member stays', async () => {
    const { ids } = await adminsWithLastDeactivated('boss@corp.example', 'gone@corp.example');
    await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }).expect(200);
    const [boss] = ids;

    const deleted = await scim('delete', `/Users/${boss}`).expect(409);
    expect(JSON.parse(deleted.text)).toMatchObject({ status: '409', scimType: 'mutability', detail: 'The last active Admin cannot be deactivated, deleted or demoted' });
    const deactivated = await deactivate(boss).expect(409);
    expect(JSON.parse(deactivated.text)).toMatchObject({ status: '409', scimType: 'mutability' });
    expect(await relay.app.get(UsersService).findById(boss)).toMatchObject({ role: 'Admin', active: true });
  });

  it('Team page: the last active Admin cannot demote themselves while the other Admin is deactivated (409)', async () => {
    await adminsWithLastDeactivated('gone@corp.example');
    const res = await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Viewer' }).expect(409);
    expect(res.body.error).toMatch(/last Admin/);
    expect(await role(admin.id)).toBe('Admin');
  });

  it('OIDC: a claim that maps the last active Admin elsewhere leaves them Admin', async () => {
    stub.claims = { sub: 'boss', email: 'boss@corp.example', email_verified: true, groups: ['relay-admins'] };
    expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
    const boss = (await relay.app.get(UsersService).findByEmail('boss@corp.example'))!;
    expect(boss.role).toBe('Admin');
    await adminsWithLastDeactivated('gone@corp.example');
    await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }).expect(200);

    stub.claims = { ...stub.claims, groups: ['mobile-devs'] };
    expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
    expect(await role(boss.id)).toBe('Admin');
  });
});
