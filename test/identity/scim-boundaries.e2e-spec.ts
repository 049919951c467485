import { SsoMembersService } from '../../src/identity/sso-members.service';
import { UsersService } from '../../src/users/users.service';
import { MemberFactory, TEST_PASSWORD, type TestMember } from '../support/factory';
import { startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * What SCIM may touch (issue 36, docs/identity.md "SCIM and the last active Admin"): only members it
 * provisioned or linked through externalId, never break-glass members (so an `sso.only` relay keeps
 * its way in), and every field bounded as the rest of the API bounds it.
 */
describe('SCIM boundaries (sso.only)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let token: string;

  beforeAll(async () => {
    relay = await startSsoRelay({
      only: true,
      // Only the role mapping is used; the provider is never contacted.
      oidc: { issuer: 'http://127.0.0.1:9', clientId: 'x', roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'] }, defaultRole: null },
    });
    members = new MemberFactory(relay);
    admin = await members.admin();
    token = (await members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token;
    // A second active Admin, so the last-Admin rule is not what refuses below.
    const boss = (await scim('post', '/Users', { schemas: [USER], userName: 'boss@corp.example' }).expect(201)).body;
    await scim('post', '/Groups', { schemas: [GROUP], displayName: 'relay-admins', members: [{ value: boss.id }] }).expect(201);
    expect((await users().findById(Number(boss.id)))!.role).toBe('Admin');
  });
  afterAll(() => relay.close());

  const users = () => relay.app.get(UsersService);
  const scim = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) => {
    const req = relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${token}`);
    return body ? req.set('Content-Type', 'application/scim+json').send(JSON.stringify(body)) : req;
  };
  const patch = (id: number | string, value: object) => scim('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value }] });
  const expectRefused = (res: { text: string }) => expect(JSON.parse(res.text)).toMatchObject({ status: '409', scimType: 'mutability' });

  it('the break-glass Admin is neither deactivated, renamed nor deleted, and still signs in with a password', async () => {
    expectRefused(await patch(admin.id, { active: false }).expect(409));
    expectRefused(await patch(admin.id, { displayName: 'Renamed' }).expect(409));
    expectRefused(await scim('put', `/Users/${admin.id}`, { schemas: [USER], userName: 'someone@else.example', externalId: 'x' }).expect(409));
    expectRefused(await scim('delete', `/Users/${admin.id}`).expect(409));
    expect(await users().findById(admin.id)).toMatchObject({ email: admin.email, displayName: null, active: true, breakGlass: true, scimExternalId: null });
    await relay.http().post('/api/v1/auth/login').send({ email: admin.email, password: TEST_PASSWORD }).expect(200);
  });

  it('a group does not demote the break-glass Admin', async () => {
    const group = (await scim('post', '/Groups', { schemas: [GROUP], displayName: 'mobile-devs', members: [{ value: String(admin.id) }] }).expect(201)).body;
    expect((await users().findById(admin.id))!.role).toBe('Admin');
    await scim('delete', `/Groups/${group.id}`).expect(204);
  });

  it('a local member SCIM did not provision nor link is not changed by SCIM, nor given a role by a group', async () => {
    const local = await users().create({ email: 'local@corp.example', password: TEST_PASSWORD, role: 'Developer' });
    expectRefused(await patch(local.id, { active: false }).expect(409));
    expectRefused(await patch(local.id, { displayName: 'Renamed' }).expect(409));
    expectRefused(await scim('delete', `/Users/${local.id}`).expect(409));
    const admins = JSON.parse((await scim('get', `/Groups?filter=${encodeURIComponent('displayName eq "relay-admins"')}`).expect(200)).text).Resources[0];
    const membership = (op: string) => scim('patch', `/Groups/${admins.id}`, { schemas: [PATCH_OP], Operations: [{ op, path: 'members', value: [{ value: String(local.id) }] }] });
    await membership('add').expect(200);
    expect((await users().findById(local.id))!.role).toBe('Developer');
    await membership('remove').expect(200);
    expect(await users().findById(local.id)).toMatchObject({ role: 'Developer', active: true, displayName: null });

    // Linking through externalId hands the member to SCIM from then on.
    await patch(local.id, { externalId: 'okta-local' }).expect(200);
    await patch(local.id, { active: false }).expect(200);
    expect((await users().findById(local.id))!.active).toBe(false);
  });

  it('a 900,000-character displayName is 400 invalidValue and nothing is stored', async () => {
    const huge = 'x'.repeat(900_000);
    const created = await scim('post', '/Users', { schemas: [USER], userName: 'huge@corp.example', displayName: huge }).expect(400);
    expect(JSON.parse(created.text)).toMatchObject({ status: '400', scimType: 'invalidValue', detail: 'displayName must be at most 200 characters' });
    expect(await users().findByEmail('huge@corp.example')).toBeNull();
    const boss = (await users().findByEmail('boss@corp.example'))!;
    await patch(boss.id, { displayName: huge }).expect(400);
    await patch(boss.id, { externalId: 'e'.repeat(301) }).expect(400);
    await scim('post', '/Users', { schemas: [USER], userName: `${'u'.repeat(320)}@corp.example` }).expect(400);
    const group = await scim('post', '/Groups', { schemas: [GROUP], displayName: huge }).expect(400);
    expect(JSON.parse(group.text)).toMatchObject({ scimType: 'invalidValue' });
    expect(await users().findById(boss.id)).toMatchObject({ displayName: null, scimExternalId: null });
    expect(JSON.parse((await scim('get', '/Groups').expect(200)).text).Resources.map((g: { displayName: string }) => g.displayName)).toEqual(['relay-admins']);
  });

  it('a group of 1,200 members (several IN lists of 500) gives and takes every member’s role', async () => {
    // Provisioned as SCIM would (UsersService + the provisioning mark), without 1,200 password hashes.
    const ids: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const user = await users().insertHashed({ email: `bulk-${i}@corp.example`, passwordHash: '!', role: 'Viewer' });
      await relay.app.get(SsoMembersService).markProvisioned(user.id);
      ids.push(user.id);
    }
    const roles = async () => (await users().findManyByIds(ids)).map((u) => u.role);
    const group = (await scim('post', '/Groups', { schemas: [GROUP], displayName: 'mobile-devs', members: ids.map((id) => ({ value: String(id) })) }).expect(201)).body;
    expect(group.members).toHaveLength(1200);
    expect(new Set(await roles())).toEqual(new Set(['Developer']));
    const leaving = ids.slice(0, 700).map((id) => ({ value: String(id) }));
    await scim('patch', `/Groups/${group.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members', value: leaving }] }).expect(200);
    const after = await roles();
    expect([after.filter((r) => r === 'Viewer').length, after.filter((r) => r === 'Developer').length]).toEqual([700, 500]);
    await scim('delete', `/Groups/${group.id}`).expect(204);
    expect(new Set(await roles())).toEqual(new Set(['Viewer']));
  }, 120_000);

  it('a group naming 45,000 members is 400 invalidValue (a documented bound), not a 500', async () => {
    const boss = (await users().findByEmail('boss@corp.example'))!;
    const ids = Array.from({ length: 45_000 }, (_, i) => ({ value: String(i === 0 ? boss.id : 100_000 + i) }));
    const res = await scim('post', '/Groups', { schemas: [GROUP], displayName: 'everyone', members: ids }).expect(400);
    expect(JSON.parse(res.text)).toMatchObject({ status: '400', scimType: 'invalidValue', detail: 'A group has at most 5000 members' });
    // Under the bound, the ids are looked up in chunks: 4,999 unknown ids are a plain 400 too.
    const under = await scim('post', '/Groups', { schemas: [GROUP], displayName: 'everyone', members: ids.slice(0, 5000) }).expect(400);
    expect(JSON.parse(under.text)).toMatchObject({ scimType: 'invalidValue', detail: 'members names a User that does not exist' });
  });
});
