import { DataSource } from 'typeorm';
import { LiveEventsService } from '../../src/live-events/live-events.service';
import { totpCode } from '../../src/two-factor/totp';
import { UsersService } from '../../src/users/users.service';
import { agentToken, device, TestPeer, upgradeRefusal, wsUrl } from '../agents/agent-kit';
import { within } from '../support/deadline';
import { MemberFactory, TEST_PASSWORD, type TestMember } from '../support/factory';
import { OidcStub } from '../support/oidc-stub';
import { SseClient } from '../support/sse-client';
import { cookieFrom, oidcSignInWithoutBrowser, startSsoRelay } from '../support/sso-relay';
import type { TestRelay } from '../support/test-relay';
import { enrolTwoFactor, TOTP_STEP_MS } from '../support/two-factor';

const SCIM_JSON = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const UNAUTHORIZED = { status: 401, body: { error: 'Unauthorized' } };

/**
 * Offboarding is final (issue 36, docs/identity.md): an inactive member has no way in, whatever they
 * hold — a cookie, a PAT, a two-factor challenge begun before, a password-reset or invitation link,
 * a single sign-on, a socket or an event stream. Deactivation deletes what it can and closes every
 * socket at once; the authenticator refuses the rest by itself, proven here on a row made inactive
 * without the deactivation path.
 */
describe('offboarding is final', () => {
  let stub: OidcStub;
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;
  let scimToken: string;
  let teamAgent: TestPeer;

  beforeAll(async () => {
    stub = await new OidcStub().start();
    relay = await startSsoRelay(
      { oidc: { issuer: stub.issuer, clientId: stub.clientId, clientSecretEnv: 'TEST_OIDC_SECRET', roles: { QA: ['qa'] }, defaultRole: null } },
      { TEST_OIDC_SECRET: stub.clientSecret },
    );
    members = new MemberFactory(relay);
    admin = await members.admin();
    scimToken = (await members.as(admin, 'post', '/api/v1/scim/tokens').send({ name: 'Okta' }).expect(201)).body.token;
    // Devices another Admin's agent serves, so the leavers' sockets close for their own credentials only.
    teamAgent = await TestPeer.agent(relay, await agentToken(members, admin), 'team-agent');
    await teamAgent.announce(relay, ['off-1', 'off-2', 'off-3'].map((id) => device(id)));
  });
  afterAll(async () => {
    teamAgent?.close();
    await relay?.close();
    await stub?.close();
  });

  const scim = (method: 'post' | 'patch', path: string, body: object) =>
    relay.http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${scimToken}`).set('Content-Type', SCIM_JSON).send(JSON.stringify(body));
  // SCIM acts only on members it manages (docs/identity.md): the same PATCH links the local member
  // through an externalId, as an identity provider taking over existing accounts does.
  const setActive = (id: number, active: boolean) =>
    scim('patch', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'externalId', value: `ext-${id}` },
        { op: 'replace', path: 'active', value: active },
      ],
    }).expect(200);
  /** The row flipped without the deactivation path: nothing is deleted, nothing is closed. */
  const markInactive = (id: number, active = false) => relay.app.get(UsersService).update(id, { active });

  const passwordStep = async (member: TestMember): Promise<string> => {
    const res = await relay.http().post('/api/v1/auth/login').send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    expect(res.body).toMatchObject({ two_factor_required: true });
    return res.body.challenge;
  };
  const codeStep = (challenge: string, secret: string) =>
    relay.http().post('/api/v1/auth/login/two-factor').send({ challenge, code: totpCode(secret, relay.clock.nowMs()) });
  const sendReset = async (member: TestMember): Promise<string> =>
    (await members.as(admin, 'post', `/api/v1/team/members/${member.id}/send-reset`).expect(200)).body.token;
  const resetLink = (token: string) => relay.http().get(`/api/v1/auth/reset-password/verify?token=${token}`);
  const rowsOf = async (table: string, userId: number): Promise<number> =>
    (await relay.app.get(DataSource).query(`SELECT id FROM ${table} WHERE user_id = ${Number(userId)}`)).length;

  it('a two-factor sign-in begun before deactivation cannot be finished: 401, no cookie; the cookie and PAT open nothing', async () => {
    const leaver = await members.member('Developer', 'twofactor-leaver@corp.example');
    const { secret } = await enrolTwoFactor(relay, members, leaver);
    const pat = await members.pat(leaver);
    relay.clock.advance(TOTP_STEP_MS); // the enrolment's code is used; the next step's is fresh
    const challenge = await passwordStep(leaver);
    const reset = await sendReset(leaver);
    expect(await rowsOf('two_factor_challenges', leaver.id)).toBe(1);

    await setActive(leaver.id, false);

    const refused = await codeStep(challenge, secret).expect(401, { error: 'Sign-in expired: enter your password again' });
    expect(refused.headers['set-cookie']).toBeUndefined();
    await members.as(leaver, 'get', '/api/v1/builds').expect(401);
    await members.as(leaver, 'post', '/api/v1/tokens').send({ name: 'after' }).expect(401);
    await members.withPat(pat, 'get', '/api/v1/builds').expect(401);
    await resetLink(reset).expect(410);
    // Deactivation deleted the pending challenge and the reset link, not only refused them:
    // reactivating the member does not bring them (or the sessions and PATs) back.
    expect(await rowsOf('two_factor_challenges', leaver.id)).toBe(0);
    expect(await rowsOf('password_resets', leaver.id)).toBe(0);
    await setActive(leaver.id, true);
    await codeStep(challenge, secret).expect(401);
    await resetLink(reset).expect(410);
    await members.as(leaver, 'get', '/api/v1/auth/me').expect(401);
    await members.withPat(pat, 'get', '/api/v1/builds').expect(401);
  });

  it('a row made inactive without the deactivation path: every credential check refuses it by itself', async () => {
    const leaver = await members.member('QA', 'flag-leaver@corp.example');
    const { secret } = await enrolTwoFactor(relay, members, leaver);
    const pat = await members.pat(leaver, 'view,builds:write');
    relay.clock.advance(TOTP_STEP_MS);
    const challenge = await passwordStep(leaver);
    const reset = await sendReset(leaver);
    const stream = await SseClient.connect(relay.url, { Cookie: leaver.cookie });

    await markInactive(leaver.id);

    await members.as(leaver, 'get', '/api/v1/auth/me').expect(401);
    await members.as(leaver, 'get', '/api/v1/builds').expect(401);
    expect((await members.as(leaver, 'get', '/api/v1/auth/session').expect(200)).body.me).toBeNull();
    await members.withPat(pat, 'get', '/api/v1/builds').expect(401);
    for (const path of ['/api/v1/sessions/off-1/connect', '/api/v1/sessions/off-1/stream']) {
      expect(await upgradeRefusal(wsUrl(relay, path), { Cookie: leaver.cookie })).toEqual(UNAUTHORIZED);
      expect(await upgradeRefusal(wsUrl(relay, path), { Authorization: `Bearer ${pat}` })).toEqual(UNAUTHORIZED);
    }
    const second = await SseClient.connect(relay.url, { Cookie: leaver.cookie });
    expect(second.status).toBe(401);
    // The open stream ends at its next session re-check (the heartbeat's; called here directly).
    await relay.app.get(LiveEventsService).beat();
    await within('the event stream', stream.ended);
    const refused = await codeStep(challenge, secret).expect(401);
    expect(refused.headers['set-cookie']).toBeUndefined();
    await resetLink(reset).expect(410);
    await relay.http().post('/api/v1/auth/reset-password').send({ token: reset, password: 'a brand new password' }).expect(410);
    await relay.http().post('/api/v1/auth/login').send({ email: leaver.email, password: TEST_PASSWORD }).expect(401);

    // Nothing was deleted: the same cookie and PAT work again once the row is active, so the
    // refusals above were the active check's own.
    await markInactive(leaver.id, true);
    await members.as(leaver, 'get', '/api/v1/auth/me').expect(200);
    await members.withPat(pat, 'get', '/api/v1/builds').expect(200);
  });

  it('deactivation closes every socket of the member at once: device-session and video sockets (cookie and PAT), agent, event stream', async () => {
    const leaver = await members.member('Admin', 'socket-leaver@corp.example');
    const pat = await members.pat(leaver, 'view');
    const agent = await TestPeer.agent(relay, await agentToken(members, leaver), 'leaver-agent');
    const stream = await SseClient.connect(relay.url, { Cookie: leaver.cookie });
    const open = (path: string, headers: Record<string, string>) => new TestPeer(wsUrl(relay, path), headers);
    const sockets = {
      'device-session (cookie)': open('/api/v1/sessions/off-2/connect', { Cookie: leaver.cookie }),
      'device-session (PAT)': open('/api/v1/sessions/off-2/connect', { Authorization: `Bearer ${pat}` }),
      'video (cookie)': open('/api/v1/sessions/off-3/stream', { Cookie: leaver.cookie }),
      'video (PAT)': open('/api/v1/sessions/off-3/stream', { Authorization: `Bearer ${pat}` }),
    };
    await Promise.all(Object.values(sockets).map((s) => s.opened));
    const start = await teamAgent.nextRequest('stream_start');
    teamAgent.send({ type: 'response', id: start.id, ok: true, result: {} });

    await setActive(leaver.id, false);

    expect((await within('the agent socket', agent.closed)).code).toBe(4003);
    await within('the event stream', stream.ended);
    for (const [what, socket] of Object.entries(sockets)) expect([what, (await within(what, socket.closed)).code]).toEqual([what, 4001]);
  });

  it('an invitation link does not let a deactivated member back in: 409, no cookie', async () => {
    const forThem = (await members.as(admin, 'post', '/api/v1/team/invite').send({ email: 'invited-leaver@corp.example' }).expect(201)).body.token;
    const open = (await members.as(admin, 'post', '/api/v1/team/invite').send({}).expect(201)).body.token;
    const created = JSON.parse((await scim('post', '/Users', { schemas: [USER], userName: 'invited-leaver@corp.example', active: true }).expect(201)).text);
    await setActive(Number(created.id), false);
    const accept = (fields: Record<string, string>) => {
      const req = relay.http().post('/api/v1/invitations/accept');
      for (const [name, value] of Object.entries(fields)) req.field(name, value);
      return req;
    };
    for (const fields of [{ token: forThem }, { token: open, email: 'invited-leaver@corp.example' }] as Record<string, string>[]) {
      const res = await accept({ ...fields, password: 'a password of theirs' }).expect(409);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('single sign-on of a deactivated member is refused, with no session', async () => {
    stub.claims = { sub: 'olive', email: 'olive@corp.example', email_verified: true, name: 'Olive', groups: ['qa'] };
    expect((await oidcSignInWithoutBrowser(relay)).status).toBe(302);
    const olive = (await relay.app.get(UsersService).findByEmail('olive@corp.example'))!;
    await setActive(olive.id, false);
    const refused = await oidcSignInWithoutBrowser(relay);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('deactivated');
    expect(cookieFrom(refused.headers['set-cookie'], 'svc_token')).toBeNull();
  });
});
