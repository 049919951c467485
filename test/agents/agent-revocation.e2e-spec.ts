import { DAY_MS } from '../../src/common/time';
import { within } from '../support/deadline';
import { MemberFactory, sessionCookieFrom, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { AGENT_PATH, agentToken, device, TestPeer, upgradeRefusal, wsUrl } from './agent-kit';

/**
 * Live revocation (agent-protocol §1, spec §5.3 / §5.9), driven through the real endpoints that
 * cause it: DELETE /tokens/:id, PATCH and DELETE /team/members/:id, send-reset + reset-password,
 * change-password. Sockets must close within moments, with the contract's code.
 */
describe('agent revocation through the real endpoints', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    // the default heartbeat: a 100 ms one dropped healthy bystanders whose pong a busy machine delayed
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(() => relay.close());

  async function connectedAgent(name: string, issuer?: TestMember, expiresInDays?: number) {
    const member = issuer ?? (await members.member('Admin'));
    const token = await agentToken(members, member, expiresInDays);
    return { member, token, peer: await TestPeer.agent(relay, token, name) };
  }

  const refuseAgent = (token: string, name = 'again') =>
    upgradeRefusal(wsUrl(relay, AGENT_PATH), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': name });

  const sessionSocket = async (sessionId: string, headers: Record<string, string>) => {
    const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/connect`), headers);
    await peer.opened;
    return peer;
  };

  const stillOpenAfter = async (peers: TestPeer[], ms = 300) => {
    await new Promise((r) => setTimeout(r, ms));
    for (const peer of peers) expect(peer.socket.readyState).toBe(peer.socket.OPEN);
  };

  it('DELETE /tokens/:id closes with 4001 at once, and the token no longer connects', async () => {
    const { member, token, peer } = await connectedAgent('revoked');
    const bystander = await connectedAgent('bystander', member);
    const list = await members.as(member, 'get', '/api/v1/tokens').expect(200);
    const id = Math.min(...list.body.map((t: { id: number }) => t.id)); // the first token issued: the 'revoked' agent's
    await members.as(member, 'delete', `/api/v1/tokens/${id}`).expect(204);
    expect((await within('peer closed', peer.closed)).code).toBe(4001);
    await stillOpenAfter([bystander.peer], 0);
    expect((await refuseAgent(token)).status).toBe(401);
    bystander.peer.close();
  });

  it('closes with 4001 when the token expires', async () => {
    const { peer } = await connectedAgent('expiring', undefined, 1);
    relay.clock.advance(DAY_MS - 60_000);
    await stillOpenAfter([peer]);
    relay.clock.advance(60_000);
    expect((await within('peer closed', peer.closed)).code).toBe(4001);
    admin.cookie = await members.login(admin.email); // the day moved on; keep the Admin's cookie fresh
  });

  it('PATCH /team/members/:id demoting the issuer closes every agent they issued with 4003; the token is then refused with 403', async () => {
    const { member, token, peer } = await connectedAgent('demoted');
    const second = await TestPeer.agent(relay, await agentToken(members, member), 'demoted-2');
    const other = await connectedAgent('other-admin');

    await members.as(admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'Developer' }).expect(200);
    expect((await within('peer closed', peer.closed)).code).toBe(4003);
    expect((await within('second closed', second.closed)).code).toBe(4003);
    await stillOpenAfter([other.peer], 0);
    expect(await refuseAgent(token)).toEqual({ status: 403, body: { error: expect.any(String) } });
    other.peer.close();
  });

  it('a demoted then re-promoted Admin connects again: with the old token and with a new one', async () => {
    const { member, token, peer } = await connectedAgent('yo-yo');
    await members.as(admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'QA' }).expect(200);
    expect((await within('peer closed', peer.closed)).code).toBe(4003);
    await members.as(admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'Admin' }).expect(200);

    const again = await TestPeer.agent(relay, token, 'yo-yo');
    const fresh = await TestPeer.agent(relay, await agentToken(members, member), 'yo-yo-new');
    await stillOpenAfter([again, fresh]);
    again.close();
    fresh.close();
  });

  it("role changes that leave the issuer an Admin (or concern someone else) keep the agent", async () => {
    const { member, peer } = await connectedAgent('still-admin');
    const qa = await members.member('QA');
    await members.as(admin, 'patch', `/api/v1/team/members/${member.id}`).send({ role: 'Admin' }).expect(200);
    await members.as(admin, 'patch', `/api/v1/team/members/${qa.id}`).send({ role: 'Viewer' }).expect(200);
    await stillOpenAfter([peer]);
    peer.close();
  });

  it('DELETE /team/members/:id closes the issuer\'s agents with 4003 and their device-session sockets; others stay', async () => {
    const { member, token, peer } = await connectedAgent('deleted');
    await peer.announce(relay, [device('del-1')]);
    const viewPat = await members.pat(member, 'view');
    const patClient = await sessionSocket('del-1', { Authorization: `Bearer ${viewPat}` });
    const cookieClient = await sessionSocket('del-1', { Cookie: member.cookie });
    const bystander = await connectedAgent('bystander-2');

    await members.as(admin, 'delete', `/api/v1/team/members/${member.id}`).expect(204);
    expect((await within('peer closed', peer.closed)).code).toBe(4003);
    // Sessions and PATs end before member.deleted (team.md), so their sockets see the revocation first.
    expect((await within('patClient closed', patClient.closed)).code).toBe(4001);
    expect((await within('cookieClient closed', cookieClient.closed)).code).toBe(4001);
    await stillOpenAfter([bystander.peer], 0);
    expect((await refuseAgent(token)).status).toBe(401);
    bystander.peer.close();
  });

  it('send-reset + POST /auth/reset-password closes the agent with 4001; the cookies and PATs are 401', async () => {
    const { member, token, peer } = await connectedAgent('reset');
    const secondBrowser = await members.login(member.email);
    const pat = await members.pat(member, 'view,builds:write');
    await members.withPat(pat, 'get', '/api/v1/apps').expect(200);

    const link = await members.as(admin, 'post', `/api/v1/team/members/${member.id}/send-reset`).expect(200);
    await stillOpenAfter([peer], 100); // sending the link changes nothing yet
    await relay.http().post('/api/v1/auth/reset-password').send({ token: link.body.token, password: 'a reset password' }).expect(200);

    expect((await within('peer closed', peer.closed)).code).toBe(4001);
    expect((await refuseAgent(token)).status).toBe(401);
    await members.as(member, 'get', '/api/v1/auth/me').expect(401);
    await relay.http().get('/api/v1/auth/me').set('Cookie', secondBrowser).expect(401);
    await members.withPat(pat, 'get', '/api/v1/apps').expect(401);
    await members.withPat(pat, 'get', '/api/v1/builds').expect(401);
    // Still an Admin: a token issued after the reset connects.
    const cookie = await members.login(member.email, 'a reset password');
    const fresh = await TestPeer.agent(relay, await agentToken(members, { ...member, cookie }), 'reset-new');
    fresh.close();
  });

  it('POST /auth/change-password closes the cookie-opened device-session sockets; PATs, PAT sockets and agents keep working', async () => {
    const { member, token, peer } = await connectedAgent('changer');
    await peer.announce(relay, [device('cp-1')]);
    const otherBrowser = await members.login(member.email);
    const pat = await members.pat(member, 'view');
    const fromThisBrowser = await sessionSocket('cp-1', { Cookie: member.cookie });
    const fromOtherBrowser = await sessionSocket('cp-1', { Cookie: otherBrowser });
    const fromPat = await sessionSocket('cp-1', { Authorization: `Bearer ${pat}` });

    const res = await members
      .as(member, 'post', '/api/v1/auth/change-password')
      .send({ currentPassword: member.password, newPassword: 'a changed password' })
      .expect(200);
    const newCookie = sessionCookieFrom(res.headers['set-cookie']);

    expect((await within('fromThisBrowser closed', fromThisBrowser.closed)).code).toBe(4001);
    expect((await within('fromOtherBrowser closed', fromOtherBrowser.closed)).code).toBe(4001);
    await stillOpenAfter([peer, fromPat]);
    await relay.http().get('/api/v1/auth/me').set('Cookie', otherBrowser).expect(401);
    await relay.http().get('/api/v1/auth/me').set('Cookie', newCookie).expect(200);
    await members.withPat(pat, 'get', '/api/v1/apps').expect(200);
    // The agent token still opens a new connection, and the new cookie opens a session socket.
    const second = await TestPeer.agent(relay, token, 'changer-2');
    const reopened = await sessionSocket('cp-1', { Cookie: newCookie });
    for (const p of [second, reopened, fromPat, peer]) p.close();
  });
});
