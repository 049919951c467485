import { UsersService } from '../../src/users/users.service';
import { auditEntries } from '../audit/audit-support';
import { MemberFactory, sessionCookieFrom } from '../support/factory';
import { freePort } from '../support/oidc-provider';
import { OidcStub, type StubTokenFault } from '../support/oidc-stub';
import { cookieFrom, oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import { startTestRelay, type TestRelay } from '../support/test-relay';
import { ENROLMENT_REQUIRED, underPolicyForEveryone } from '../support/two-factor-policy';

/**
 * OpenID Connect sign-in (docs/identity.md) against a hand-made provider on loopback
 * (test/support/oidc-stub.ts): provisioning, roles from groups, linking, redirects, and every kind
 * of ID token the relay must refuse. The certified provider drives the full flow in oidc-provider.e2e-spec.ts.
 */
describe('OIDC sign-in', () => {
  let stub: OidcStub;
  let relay: TestRelay;
  let members: MemberFactory;

  beforeAll(async () => {
    stub = await new OidcStub().start();
    relay = await startSsoRelay(
      {
        oidc: {
          issuer: stub.issuer,
          clientId: stub.clientId,
          clientSecretEnv: 'TEST_OIDC_SECRET',
          name: 'Test IdP',
          roles: { Admin: ['relay-admins'], Developer: ['mobile-devs'], QA: ['qa'] },
          defaultRole: null,
          externalIdClaim: 'ext_id',
        },
      },
      { TEST_OIDC_SECRET: stub.clientSecret },
    );
    members = new MemberFactory(relay);
    await members.admin();
  });
  afterAll(async () => {
    await relay?.close();
    await stub?.close();
  });
  beforeEach(() => {
    stub.fault = 'none';
  });

  const person = (sub: string, groups: string[], extra: Record<string, unknown> = {}) => {
    stub.claims = { sub, email: `${sub}@corp.example`, email_verified: true, name: `Person ${sub}`, groups, ...extra };
  };

  it('GET /auth/status names the provider for the sign-in page', async () => {
    const { body } = await relay.http().get('/api/v1/auth/status').expect(200);
    expect(body.methods).toEqual({ password: true, ldap: false, oidc: { name: 'Test IdP', loginPath: '/api/v1/auth/oidc/login' }, ssoOnly: false });
  });

  it('login redirects to the provider with code flow, PKCE S256, state and nonce, and a flow cookie scoped to the OIDC routes', async () => {
    const res = await relay.http().get('/api/v1/auth/oidc/login').expect(302);
    const to = new URL(res.headers.location);
    expect(to.origin + to.pathname).toBe(`${stub.issuer}/authorize`);
    expect(to.searchParams.get('response_type')).toBe('code');
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('redirect_uri')).toBe(`${relay.url}/api/v1/auth/oidc/callback`);
    expect(to.searchParams.get('state')).toMatch(/^[\w-]{30,}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[\w-]{30,}$/);
    expect(to.searchParams.get('scope')).toBe('openid email profile');
    const flow = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('svc_oidc='))!;
    expect(flow).toMatch(/HttpOnly/);
    expect(flow).toMatch(/SameSite=Lax/);
    expect(flow).toMatch(/Path=\/api\/v1\/auth\/oidc/);
  });

  it('first sign-in provisions the member with the mapped role, sets svc_token and goes to next; later sign-ins update the role', async () => {
    person('ada', ['qa', 'mobile-devs']);
    const first = await oidcSignInWithoutBrowser(relay, '/builds?app=3');
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/builds?app=3');
    expect(stub.pkceChecked).toBe(true);
    const cookie = sessionCookieFrom(first.headers['set-cookie']);
    const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200)).body;
    expect(me).toMatchObject({ email: 'ada@corp.example', role: 'Developer', displayName: 'Person ada' });

    person('ada', ['qa']);
    const again = await oidcSignInWithoutBrowser(relay);
    expect(again.status).toBe(302);
    expect((await relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(200)).body.role).toBe('QA');
    expect((await relay.app.get(UsersService).list()).filter((u) => u.email === 'ada@corp.example')).toHaveLength(1);
  });

  it('a provisioned member has no password that signs in', async () => {
    person('nopass', ['qa']);
    expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
    for (const password of ['', 'password', 'correct horse battery']) {
      const res = await relay.http().post('/api/v1/auth/login').send({ email: 'nopass@corp.example', password });
      expect([400, 401]).toContain(res.status);
    }
  });

  it('no mapped group and no default role: a refusal page, and nobody is created', async () => {
    person('eve', ['marketing']);
    const res = await oidcSignInWithoutBrowser(relay);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Sign-in refused');
    expect(res.text).toContain('no group that gives a role');
    expect(cookieFrom(res.headers['set-cookie'], 'svc_token')).toBeNull();
    expect(await relay.app.get(UsersService).findByEmail('eve@corp.example')).toBeNull();
  });

  it('an existing local member is linked by a verified e-mail only', async () => {
    const local = await members.member('Viewer', 'grace@corp.example');
    person('grace', ['mobile-devs'], { email_verified: false });
    const unverified = await oidcSignInWithoutBrowser(relay);
    expect(unverified.status).toBe(403);
    expect(unverified.text).toContain('has not verified');
    expect((await relay.app.get(UsersService).findById(local.id))!.role).toBe('Viewer');

    person('grace', ['mobile-devs']);
    const verified = await oidcSignInWithoutBrowser(relay);
    expect(verified.status).toBe(302);
    const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(verified.headers['set-cookie'])).expect(200)).body;
    expect(me).toMatchObject({ id: local.id, role: 'Developer' });
    // The password the member had still works: linking adds a way in, it takes none away.
    await members.login('grace@corp.example');
  });

  const scimMember = async (email: string, externalId?: string): Promise<number> => {
    const created = await relay
      .http()
      .post('/scim/v2/Users')
      .set('Authorization', `Bearer ${await scimToken()}`)
      .send({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, ...(externalId ? { externalId } : {}) })
      .expect(201);
    return Number(created.body.id);
  };
  let scimBearer: string | null = null;
  const scimToken = async (): Promise<string> =>
    (scimBearer ??= (await members.as(await members.admin(), 'post', '/api/v1/scim/tokens').send({ name: 'idp' }).expect(201)).body.token as string);
  const failures = async (reason: string) =>
    (await auditEntries({ relay, members }, await members.admin(), 'action=auth.sign_in_failed')).filter((e) => e.details?.reason === reason);

  // Issue 36: the e-mail alone, unverified, is no proof even for a member SCIM created; the provider's
  // externalId claim (sso.oidc.externalIdClaim) matching the member's SCIM externalId is (Entra ID sends no email_verified).
  it('a member the provider created through SCIM is linked without email_verified only when the externalId claim matches', async () => {
    const id = await scimMember('sam@corp.example', 'ext-sam');
    person('sam', ['mobile-devs'], { email_verified: undefined });
    const bare = await oidcSignInWithoutBrowser(relay);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain('has not verified');
    person('sam', ['mobile-devs'], { email_verified: undefined, ext_id: 'ext-someone-else' });
    expect((await oidcSignInWithoutBrowser(relay)).status).toBe(403);

    person('sam', ['mobile-devs'], { email_verified: undefined, ext_id: 'ext-sam' });
    const res = await oidcSignInWithoutBrowser(relay);
    expect(res.status).toBe(302);
    const me = (await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(res.headers['set-cookie'])).expect(200)).body;
    expect(me).toMatchObject({ id, role: 'Developer' });
    expect((await failures('unverified_email')).filter((e) => e.target === `member:${id}`)).toHaveLength(2);
  });

  it('a second subject for a member already linked is refused, with the reason on the page and in the audit log', async () => {
    const id = await scimMember('tara@corp.example', 'ext-tara');
    person('tara', ['qa'], { ext_id: 'ext-tara' });
    const first = await oidcSignInWithoutBrowser(relay);
    expect(first.status).toBe(302);

    // Another account at the provider claiming her address: unverified, then even verified (one link per provider).
    for (const verified of [false, true]) {
      person('tara-2', ['relay-admins'], { email: 'tara@corp.example', email_verified: verified });
      const second = await oidcSignInWithoutBrowser(relay);
      expect(second.status).toBe(403);
      expect(second.headers['content-type']).toMatch(/^text\/html/);
      expect(second.text).toContain('Sign-in refused');
      expect(second.text).toContain('already signs in here with another account at Test IdP');
      expect(cookieFrom(second.headers['set-cookie'], 'svc_token')).toBeNull();
    }
    const refused = (await failures('already_linked')).filter((e) => e.target === `member:${id}`);
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ actor: 'tara@corp.example', via: 'sso', details: { method: 'oidc', reason: 'already_linked' } });
    expect((await relay.app.get(UsersService).findById(id))!.role).toBe('QA');

    // The first subject still signs her in.
    person('tara', ['qa'], { ext_id: 'ext-tara' });
    const again = await oidcSignInWithoutBrowser(relay);
    expect(again.status).toBe(302);
    expect((await relay.http().get('/api/v1/auth/me').set('Cookie', sessionCookieFrom(again.headers['set-cookie'])).expect(200)).body.id).toBe(id);
  });

  it('next goes to same-site paths only', async () => {
    person('nextuser', ['qa']);
    for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/ok\r\nSet-Cookie: x=1']) {
      const res = await oidcSignInWithoutBrowser(relay, next);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/');
    }
  });

  it('a callback without the flow cookie, or with another flow’s state, is refused', async () => {
    person('mallory', ['qa']);
    const noCookie = await oidcSignInWithoutBrowser(relay, '/', (callback) => ({ callback, flowCookie: null }));
    expect(noCookie.status).toBe(401);
    expect(noCookie.text).toContain('not started from this browser');

    const other = await relay.http().get('/api/v1/auth/oidc/login').expect(302);
    const otherFlow = cookieFrom(other.headers['set-cookie'], 'svc_oidc')!;
    const swapped = await oidcSignInWithoutBrowser(relay, '/', (callback) => ({ callback, flowCookie: otherFlow }));
    expect(swapped.status).toBe(401);
    expect(swapped.text).toContain('could not be verified');
    expect(cookieFrom(swapped.headers['set-cookie'], 'svc_token')).toBeNull();
  });

  // Issue 36 item 7: a refused request's log line keeps its query string; the callback's code and state are masked in it.
  it('a refused callback is logged with its code and state masked, and so is a state mismatch', async () => {
    person('masked', ['qa']);
    const sent: URL[] = [];
    const keep = (flowCookie: string | null) => (callback: URL) => (sent.push(callback), { callback, flowCookie });
    expect((await oidcSignInWithoutBrowser(relay, '/', keep(null))).status).toBe(401);
    const other = cookieFrom((await relay.http().get('/api/v1/auth/oidc/login').expect(302)).headers['set-cookie'], 'svc_oidc')!;
    expect((await oidcSignInWithoutBrowser(relay, '/', keep(other))).status).toBe(401);

    const log = relay.logger.buffer.tail(100).join('\n');
    expect(log.match(/GET \/api\/v1\/auth\/oidc\/callback\?\S* 401/g)?.slice(-2)).toEqual([
      'GET /api/v1/auth/oidc/callback?code=***&state=*** 401',
      'GET /api/v1/auth/oidc/callback?code=***&state=*** 401',
    ]);
    expect(log).toContain('OIDC sign-in refused: state mismatch, expected ***, got: ***');
    for (const callback of sent) {
      expect(log).not.toContain(callback.searchParams.get('code')!);
      expect(log).not.toContain(callback.searchParams.get('state')!);
    }
  });

  const faults: [StubTokenFault, RegExp][] = [
    ['wrong-audience', /aud mismatch/],
    ['expired', /expired/],
    ['bad-nonce', /nonce mismatch/],
    ['unsigned', /alg/],
    ['foreign-key', /signature|no valid key/],
  ];
  it.each(faults)('an ID token that is %s is refused with a page, and no session', async (fault, reason) => {
    person(`fault-${fault}`, ['relay-admins']);
    stub.fault = fault;
    const res = await oidcSignInWithoutBrowser(relay);
    expect(res.status).toBe(401);
    expect(res.text).toContain('could not be verified');
    expect(res.text).toMatch(reason);
    expect(cookieFrom(res.headers['set-cookie'], 'svc_token')).toBeNull();
    expect(await relay.app.get(UsersService).findByEmail(`fault-${fault}@corp.example`)).toBeNull();
  });

  it('RP-initiated logout ends the session and names the provider’s end-session URL', async () => {
    person('leaver', ['qa']);
    const cookie = sessionCookieFrom((await oidcSignInWithoutBrowser(relay)).headers['set-cookie']);
    const { body } = await relay.http().post('/api/v1/auth/oidc/logout').set('Cookie', cookie).expect(200);
    const to = new URL(body.redirect);
    expect(to.origin + to.pathname).toBe(`${stub.issuer}/logout`);
    expect(to.searchParams.get('client_id')).toBe(stub.clientId);
    expect(to.searchParams.get('post_logout_redirect_uri')).toBe(`${relay.url}/signin`);
    await relay.http().get('/api/v1/auth/me').set('Cookie', cookie).expect(401);
  });


  // The relay's two-factor policy is for local accounts: a provider's member has the provider's own
  // second factor, and no relay password to set one up with (it would be held at enrolment for good).
  it('a two-factor policy for everyone holds local members at enrolment, not the provider\'s members', async () => {
    await underPolicyForEveryone(relay, members, async () => {
      person('sso-2fa', ['qa']);
      const cookie = sessionCookieFrom((await oidcSignInWithoutBrowser(relay)).headers['set-cookie']);
      await relay.http().get('/api/v1/apps').set('Cookie', cookie).expect(200);
      expect((await relay.http().get('/api/v1/auth/session').set('Cookie', cookie).expect(200)).body.two_factor_enrolment_required).toBe(false);
      const local = await members.member('QA');
      await members.as(local, 'get', '/api/v1/apps').expect(403, ENROLMENT_REQUIRED);
    });
  });

  // Issue 36: the exemption belongs to the provider's sign-in, not to the member: the same member's
  // password sign-in is held like anyone's.
  it('a linked member signing in with their password is held at enrolment like an unlinked one; their OIDC sign-in is not', async () => {
    const linked = await members.member('Developer', 'lina@corp.example');
    const unlinked = await members.member('Developer', 'ulla@corp.example');
    person('lina', ['mobile-devs']);
    const sso = await oidcSignInWithoutBrowser(relay);
    expect(sso.status).toBe(302);
    const ssoCookie = sessionCookieFrom(sso.headers['set-cookie']);
    await underPolicyForEveryone(relay, members, async () => {
      for (const member of [unlinked, linked]) {
        const cookie = await members.login(member.email);
        await relay.http().get('/api/v1/builds').set('Cookie', cookie).expect(403, ENROLMENT_REQUIRED);
        await relay.http().post('/api/v1/tokens').set('Cookie', cookie).send({ name: 'ci' }).expect(403, ENROLMENT_REQUIRED);
        expect((await relay.http().get('/api/v1/auth/session').set('Cookie', cookie).expect(200)).body.two_factor_enrolment_required).toBe(true);
      }
      await relay.http().get('/api/v1/builds').set('Cookie', ssoCookie).expect(200);
      const pat = (await relay.http().post('/api/v1/tokens').set('Cookie', ssoCookie).send({ name: 'ci' }).expect(201)).body.token;
      await relay.http().get('/api/v1/builds').set('Authorization', `Bearer ${pat}`).expect(200);
      expect((await relay.http().get('/api/v1/auth/session').set('Cookie', ssoCookie).expect(200)).body.two_factor_enrolment_required).toBe(false);
    });
  });
});

describe('OIDC routes without sso.oidc', () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay();
  });
  afterAll(() => relay.close());

  it('answer 404, and /auth/status keeps the spec’s shape (no methods: passwords only)', async () => {
    await relay.http().get('/api/v1/auth/oidc/login').expect(404);
    await relay.http().get('/api/v1/auth/oidc/callback?code=x&state=y').expect(404);
    expect((await relay.http().get('/api/v1/auth/status').expect(200)).body).toEqual({ initialized: false, canInitialize: true });
  });
});

describe('OIDC with a provider that cannot be reached', () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startSsoRelay({ oidc: { issuer: `http://127.0.0.1:${await freePort()}`, clientId: 'x', name: 'Down IdP', defaultRole: 'Viewer' } });
  });
  afterAll(() => relay.close());

  it('login answers a 502 page naming the provider, and the relay logs why', async () => {
    const res = await relay.http().get('/api/v1/auth/oidc/login').expect(502);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Down IdP could not be reached');
    expect(relay.logger.buffer.tail(50).join('\n')).toMatch(/OIDC discovery of http:\/\/127\.0\.0\.1:\d+ failed/);
  });
});
