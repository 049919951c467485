import { UsersService } from '../../src/users/users.service';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, sessionCookieFrom, TEST_PASSWORD } from '../support/factory';
import { slapdSkipReason, startDirectory, SUFFIX, type TestDirectory } from '../support/slapd';
import { freePort } from '../support/oidc-provider';
import { startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';
import { ENROLMENT_REQUIRED, underPolicyForEveryone } from '../support/two-factor-policy';

const PEOPLE = `ou=people,${SUFFIX}`;
const GROUPS = `ou=groups,${SUFFIX}`;
const SERVICE_DN = `cn=svc-relay,${SUFFIX}`;

/**
 * LDAP sign-in through the normal form (docs/identity.md) against Debian's OpenLDAP server started
 * by the test (test/support/slapd.ts): service bind, search by e-mail, user bind, groups from
 * memberOf mapped to roles, StartTLS and LDAPS with the directory's CA, and what happens when the
 * directory is down.
 */
describeUnless(slapdSkipReason(), 'LDAP sign-in with slapd', () => {
  let directory: TestDirectory;
  const relays: TestRelay[] = [];

  const ldapConfig = (overrides: Record<string, unknown> = {}) => ({
    ldap: {
      url: directory.url,
      bindDn: SERVICE_DN,
      bindPasswordEnv: 'TEST_LDAP_BIND_PASSWORD',
      searchBase: PEOPLE,
      roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'], QA: ['qa'] },
      ...overrides,
    },
  });
  const relayWith = async (overrides: Record<string, unknown> = {}) => {
    const relay = await startSsoRelay(ldapConfig(overrides), { TEST_LDAP_BIND_PASSWORD: 'service-secret' });
    relays.push(relay);
    return relay;
  };
  const login = (relay: TestRelay, email: string, password: string) => relay.http().post('/api/v1/auth/login').send({ email, password });

  beforeAll(async () => {
    directory = await startDirectory();
    await directory.add(SERVICE_DN, { objectClass: ['organizationalRole', 'simpleSecurityObject'], cn: 'svc-relay', userPassword: 'service-secret' });
    await directory.add(PEOPLE, { objectClass: 'organizationalUnit', ou: 'people' });
    await directory.add(GROUPS, { objectClass: 'organizationalUnit', ou: 'groups' });
    const person = (uid: string, name: string) =>
      directory.add(`uid=${uid},${PEOPLE}`, {
        objectClass: 'inetOrgPerson',
        uid,
        cn: name,
        sn: name.split(' ').pop()!,
        displayName: name,
        mail: `${uid}@corp.example`,
        userPassword: `${uid}-directory-pass`,
      });
    await person('ada', 'Ada Lovelace');
    await person('bob', 'Bob Admin');
    await person('carol', 'Carol Sales');
    await directory.add(`cn=mobile-devs,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'mobile-devs', member: [`uid=ada,${PEOPLE}`] });
    await directory.add(`cn=relay-admins,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'relay-admins', member: [`uid=bob,${PEOPLE}`] });
    await directory.add(`cn=sales,${GROUPS}`, { objectClass: 'groupOfNames', cn: 'sales', member: [`uid=carol,${PEOPLE}`] });
  }, 60_000);
  afterAll(async () => {
    for (const relay of relays) await relay.close();
    await directory?.close();
  });

  describe('over ldap://', () => {
    let relay: TestRelay;
    let members: MemberFactory;
    beforeAll(async () => {
      relay = await relayWith();
      members = new MemberFactory(relay);
      await members.admin();
    });

    it('/auth/status says the form checks the directory', async () => {
      expect((await relay.http().get('/api/v1/auth/status').expect(200)).body.methods).toEqual({ password: true, ldap: true, oidc: null, ssoOnly: false });
    });

    it('a directory member signs in with the directory password and is provisioned with the role of their groups', async () => {
      const res = await login(relay, ' Ada@Corp.example ', 'ada-directory-pass').expect(200);
      expect(res.body).toEqual({ ok: true, role: 'Developer' });
      const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(res.headers['set-cookie'])).expect(200)).body;
      expect(me).toMatchObject({ email: 'ada@corp.example', role: 'Developer', displayName: 'Ada Lovelace' });
      expect((await login(relay, 'bob@corp.example', 'bob-directory-pass').expect(200)).body.role).toBe('Admin');
    });

    it('a wrong directory password is 401 like any wrong password', async () => {
      const res = await login(relay, 'ada@corp.example', 'not-it-at-all').expect(401);
      expect(res.body).toEqual({ error: 'Invalid email or password' });
      await login(relay, 'ada@corp.example', '').expect(400);
    });

    it('a member in no mapped group is refused, with the reason', async () => {
      const res = await login(relay, 'carol@corp.example', 'carol-directory-pass').expect(403);
      expect(res.body.error).toContain('no group that gives a role');
      expect(await relay.app.get(UsersService).findByEmail('carol@corp.example')).toBeNull();
    });

    it('an e-mail cannot widen the search filter', async () => {
      await login(relay, '*', 'ada-directory-pass').expect((res) => expect([400, 401]).toContain(res.status));
      await login(relay, 'a*@corp.example', 'ada-directory-pass').expect(401);
      await login(relay, 'x)(mail=ada@corp.example', 'ada-directory-pass').expect((res) => expect([400, 401]).toContain(res.status));
    });

    it('someone the directory does not know signs in with the relay’s own password (the first Admin)', async () => {
      await login(relay, 'admin@example.com', TEST_PASSWORD).expect(200);
    });

    // Issue 36: the policy's exemption belongs to the directory's sign-in (recorded on the session), not to the member.
    it('under a two-factor policy the directory’s sign-in is exempt, a relay password sign-in is not', async () => {
      const local = await members.member('QA', 'lou@example.com');
      await underPolicyForEveryone(relay, members, async () => {
        const ada = sessionCookieFrom((await login(relay, 'ada@corp.example', 'ada-directory-pass').expect(200)).headers['set-cookie']);
        await relay.http().get('/api/v1/builds').set('Cookie', ada).expect(200);
        await relay.http().post('/api/v1/tokens').set('Cookie', ada).send({ name: 'ci' }).expect(201);
        const lou = await members.login(local.email);
        await relay.http().get('/api/v1/builds').set('Cookie', lou).expect(403, ENROLMENT_REQUIRED);
      });
    });
  });

  it('directory groups never demote the last active Admin, even with another Admin deactivated (issue 36)', async () => {
    const relay = await relayWith();
    const members = new MemberFactory(relay);
    const admin = await members.admin();
    const ada = (await login(relay, 'ada@corp.example', 'ada-directory-pass').expect(200)).body;
    expect(ada.role).toBe('Developer');
    const adaId = (await relay.app.get(UsersService).findByEmail('ada@corp.example'))!.id;
    await members.as(admin, 'patch', `/api/v1/team/members/${adaId}`).send({ role: 'Admin' }).expect(200);
    // A second Admin, provisioned and then deactivated through SCIM: an Admin who cannot sign in.
    const { token } = (await members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body;
    const scim = (method: 'post' | 'patch', path: string, body: object) =>
      relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${token}`).send(body);
    const gone = (await scim('post', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'gone@corp.example' }).expect(201)).body;
    await scim('post', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'relay-admins', members: [{ value: gone.id }] }).expect(201);
    await scim('patch', `/Users/${gone.id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] }).expect(200);
    await members.as(admin, 'patch', `/api/v1/team/members/${admin.id}`).send({ role: 'Developer' }).expect(200);

    // Ada's directory groups map to Developer, but she is the only Admin who can sign in.
    expect((await login(relay, 'ada@corp.example', 'ada-directory-pass').expect(200)).body.role).toBe('Admin');
  });

  it('groups found by a group search, for directories without memberOf', async () => {
    const bySearch = await relayWith({ groupAttribute: 'description', groupSearchBase: GROUPS });
    expect((await login(bySearch, 'ada@corp.example', 'ada-directory-pass').expect(200)).body.role).toBe('Developer');
    const none = await relayWith({ groupAttribute: 'description' });
    await login(none, 'ada@corp.example', 'ada-directory-pass').expect(403);
  });

  it('StartTLS and LDAPS with the directory’s CA', async () => {
    const startTls = await relayWith({ startTls: true, caFile: directory.caFile });
    expect((await login(startTls, 'ada@corp.example', 'ada-directory-pass').expect(200)).body.role).toBe('Developer');
    const ldaps = await relayWith({ url: directory.ldapsUrl, caFile: directory.caFile });
    expect((await login(ldaps, 'bob@corp.example', 'bob-directory-pass').expect(200)).body.role).toBe('Admin');
  });

  it('LDAPS with a certificate the relay does not trust is refused (503), never sent the password in clear', async () => {
    const untrusted = await relayWith({ url: directory.ldapsUrl });
    const res = await login(untrusted, 'ada@corp.example', 'ada-directory-pass').expect(503);
    expect(res.body.error).toContain('could not be reached');
  });

  it('with the directory down, the relay’s own accounts still sign in; others get 503', async () => {
    const down = await relayWith({ url: `ldap://127.0.0.1:${await freePort()}` });
    const members = new MemberFactory(down);
    await members.admin();
    await login(down, 'admin@example.com', TEST_PASSWORD).expect(200);
    await login(down, 'ada@corp.example', 'ada-directory-pass').expect(503);
  });
});
