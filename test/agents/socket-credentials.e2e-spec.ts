import { TokensService } from '../../src/tokens/tokens.service';
import { DAY_MS } from '../../src/common/time';
import { within } from '../support/deadline';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, device, TestPeer, wsUrl } from './agent-kit';

/**
 * Sockets that outlive their credentials (issue 16 item 5). A revocation or demotion that lands
 * between the upgrade's credential check and the socket's registration emits its event while there
 * is no socket to close; and a PAT or cookie that expires must close device-session sockets too,
 * not only agents.
 */
describe('credentials that change while an agent socket is being registered', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let admin: TestMember;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    admin = await members.admin();
  });
  afterAll(() => relay.close());
  afterEach(() => jest.restoreAllMocks());

  /** Runs `meanwhile` right after the upgrade's PAT lookup succeeded, before the socket exists. */
  function duringNextUpgrade(meanwhile: () => Promise<unknown>): void {
    const tokens = relay.app.get(TokensService);
    const verify = tokens.verify.bind(tokens);
    jest.spyOn(tokens, 'verify').mockImplementationOnce(async (raw) => {
      const verified = await verify(raw);
      await meanwhile();
      return verified;
    });
  }

  it('a token revoked in that window closes the agent with 4001', async () => {
    const issuer = await members.member('Admin');
    const token = await agentToken(members, issuer);
    const [{ id }] = (await members.as(issuer, 'get', '/api/v1/tokens').expect(200)).body;
    duringNextUpgrade(() => members.as(issuer, 'delete', `/api/v1/tokens/${id}`).expect(204));
    const peer = new TestPeer(wsUrl(relay, '/api/v1/agent/connect'), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': 'racer' });
    expect((await within('peer closed', peer.closed)).code).toBe(4001);
  });

  it('an issuer demoted in that window closes the agent with 4003', async () => {
    const issuer = await members.member('Admin');
    const token = await agentToken(members, issuer);
    duringNextUpgrade(() =>
      members.as(admin, 'patch', `/api/v1/team/members/${issuer.id}`).send({ role: 'Developer' }).expect(200),
    );
    const peer = new TestPeer(wsUrl(relay, '/api/v1/agent/connect'), { Authorization: `Bearer ${token}`, 'X-Svc-Agent-Name': 'demoted-racer' });
    expect((await within('peer closed', peer.closed)).code).toBe(4003);
  });

  it('a device-session client whose PAT is revoked in that window is closed with 4001', async () => {
    const agent = await TestPeer.agent(relay, await agentToken(members), 'window-agent');
    await agent.announce(relay, [device('window-1')]);
    const viewer = await members.member('Viewer');
    const pat = await members.pat(viewer, 'view');
    const [{ id }] = (await members.as(viewer, 'get', '/api/v1/tokens').expect(200)).body;
    duringNextUpgrade(() => members.as(viewer, 'delete', `/api/v1/tokens/${id}`).expect(204));
    const client = new TestPeer(wsUrl(relay, '/api/v1/sessions/window-1/connect'), { Authorization: `Bearer ${pat}` });
    expect((await within('client closed', client.closed)).code).toBe(4001);
    agent.close();
  });
});

describe('device-session sockets close when their credential expires', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let agent: TestPeer;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    agent = await TestPeer.agent(relay, await agentToken(members), 'expiry-agent');
    await agent.announce(relay, [device('expiry-1')]);
  });
  afterAll(async () => {
    agent.close();
    await relay.close();
  });

  const connect = async (headers: Record<string, string>) => {
    const peer = new TestPeer(wsUrl(relay, '/api/v1/sessions/expiry-1/connect'), headers);
    await peer.opened;
    return peer;
  };

  it('a PAT(view) socket is closed with 4001 when the PAT expires, not before', async () => {
    const qa = await members.member('QA');
    const client = await connect({ Authorization: `Bearer ${await members.pat(qa, 'view', 1)}` });
    relay.clock.advance(DAY_MS - 60_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    relay.clock.advance(60_000);
    expect((await within('client closed', client.closed)).code).toBe(4001);
  });

  it('a cookie socket is closed with 4001 when the session (7 days) expires', async () => {
    const qa = await members.member('QA');
    const client = await connect({ Cookie: qa.cookie });
    relay.clock.advance(7 * DAY_MS);
    expect((await within('client closed', client.closed)).code).toBe(4001);
  });
});
