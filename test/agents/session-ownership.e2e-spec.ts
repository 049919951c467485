import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { MemberFactory, TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, device, TestPeer, until, wsUrl } from './agent-kit';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

/**
 * Issue 36 item 9: a sessionId is unique across agents (agent-protocol §2.2). While its owner is
 * connected, another agent listing it is refused (logged) and the device stays with its owner.
 */
describe('agents: a sessionId belongs to the agent connected with it', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewPat: string;
  let token: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewPat = await members.pat(qa, 'view');
    token = await agentToken(members);
  });
  afterAll(() => relay.close());

  const client = async (sessionId: string) => {
    const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/connect`), { Authorization: `Bearer ${viewPat}` });
    await peer.opened;
    return peer;
  };

  /** A screenshot through REST, answered by whichever agent gets the request. */
  const screenshot = async (sessionId: string, answering: TestPeer) => {
    const res = relay.http().get(`/api/v1/sessions/${sessionId}/screenshot`).set('Cookie', qa.cookie).buffer(true).parse(rawBody)
      .then((r) => r); // supertest sends on then(): start the request before waiting for the agent
    const request = await answering.nextRequest('screenshot');
    expect(request.params.sessionId).toBe(sessionId);
    answering.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, PNG));
    expect((await res).status).toBe(200);
  };

  /** A device-session request, answered by whichever agent gets it. */
  const forward = async (socket: TestPeer, answering: TestPeer, method: string, params: object) => {
    socket.send({ type: 'request', id: `c-${method}`, method, params });
    const request = await answering.nextRequest(method);
    answering.send({ type: 'response', id: request.id, ok: true, result: {} });
    expect((await socket.next((m) => m.json?.id === `c-${method}`)).json).toMatchObject({ ok: true });
  };

  it('refuses a sessionId listed by a second agent while its owner is connected; screenshots, input and installs reach the owner', async () => {
    const owner = await TestPeer.agent(relay, token, 'owner-agent');
    await owner.announce(relay, [device('owned-1')]);
    const impostor = await TestPeer.agent(relay, token, 'impostor-agent');
    // The impostor's own device comes in the same message: once it is known, the whole list was handled.
    await impostor.announce(relay, [device('owned-1'), device('impostor-1')]);

    expect(relay.app.get(AgentDirectory).locate('owned-1')?.agentName).toBe('owner-agent');
    const warning = relay.logger.buffer.tail(200).find((line) => line.includes('impostor-agent') && line.includes('owned-1'));
    expect(warning).toContain('owner-agent');

    const devices = await relay.http().get('/api/v1/devices').set('Cookie', qa.cookie).expect(200);
    const owned = (devices.body.items as { session_id: string; agent: string }[]).filter((d) => d.session_id === 'owned-1');
    expect(owned).toEqual([expect.objectContaining({ agent: 'owner-agent' })]);

    await screenshot('owned-1', owner);
    const socket = await client('owned-1');
    await forward(socket, owner, 'type_text', { text: 'secret' });
    await forward(socket, owner, 'install_build', { buildId: 1 });
    // The impostor's first request is for its own device: nothing for owned-1 reached it before.
    await screenshot('impostor-1', impostor);
    // Its events for a session it does not own reach no client.
    impostor.send({ type: 'event', sessionId: 'owned-1', event: 'log', data: { from: 'impostor' } });
    owner.send({ type: 'event', sessionId: 'owned-1', event: 'log', data: { from: 'owner' } });
    expect((await socket.next((m) => m.json?.type === 'event')).json.data).toEqual({ from: 'owner' });
    socket.close();

    // The owner goes away: the other agent may now list the session and take it.
    owner.close();
    await owner.closed;
    await until(() => !relay.app.get(AgentDirectory).locate('owned-1')?.connection);
    await impostor.announce(relay, [device('owned-1'), device('impostor-1')]);
    expect(relay.app.get(AgentDirectory).locate('owned-1')?.agentName).toBe('impostor-agent');
    await screenshot('owned-1', impostor);
    impostor.close();
    await impostor.closed;
  });

  it('lets the same agent list its sessions again, and a reconnection under its name keeps them', async () => {
    const first = await TestPeer.agent(relay, token, 'steady-agent');
    await first.announce(relay, [device('steady-1')]);
    await first.announce(relay, [device('steady-1'), device('steady-2')]);
    const second = await TestPeer.agent(relay, token, 'steady-agent');
    await first.closed;
    await second.announce(relay, [device('steady-1')]);
    expect(relay.app.get(AgentDirectory).locate('steady-1')?.agentName).toBe('steady-agent');
    await screenshot('steady-1', second);
    second.close();
    await second.closed;
  });
});
