import { AGENT_BUSY } from '../../src/sessions/device-sessions.service';
import { agentToken, device, TestPeer, wsUrl } from '../agents/agent-kit';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * Limits on what one client can hold (issue 16 item 6): a device-session client's requests waiting
 * on the agent are capped (`busy` past the cap, nothing forwarded), and an agent that stops reading
 * its socket is not sent more (back-pressure) than the relay is willing to buffer.
 */
describe('device-session limits', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let viewPat: string;
  let agentPat: string;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_DEVICE_SESSION_IN_FLIGHT: '3', SVC_AGENT_REQUEST_TIMEOUT_MS: '20000' });
    members = new MemberFactory(relay);
    viewPat = await members.pat(await members.member('QA'), 'view');
    agentPat = await agentToken(members);
  });
  afterAll(() => relay.close());

  const client = async (sessionId: string) => {
    const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/connect`), { Authorization: `Bearer ${viewPat}` });
    await peer.opened;
    return peer;
  };
  const response = (peer: TestPeer, id: string) => peer.next((m) => m.json?.type === 'response' && m.json.id === id).then((m) => m.json);

  it('past the in-flight cap a request is answered busy at once and not forwarded', async () => {
    const agent = await TestPeer.agent(relay, agentPat, 'capped');
    await agent.announce(relay, [device('cap-1')]);
    const peer = await client('cap-1');
    for (const id of ['a', 'b', 'c', 'd', 'e']) peer.send({ type: 'request', id, method: 'tap', params: { x: 0.1, y: 0.1 } });

    for (const id of ['d', 'e']) {
      expect(await response(peer, id)).toEqual({
        type: 'response',
        id,
        ok: false,
        error: { code: 'busy', message: expect.stringContaining('at most 3') },
      });
    }
    const forwarded = [await agent.nextRequest('tap'), await agent.nextRequest('tap'), await agent.nextRequest('tap')];

    // answered: room again; the next request the agent sees is this one, so d and e never reached it
    for (const request of forwarded) agent.send({ type: 'response', id: request.id, ok: true, result: {} });
    for (const id of ['a', 'b', 'c']) expect((await response(peer, id)).ok).toBe(true);
    peer.send({ type: 'request', id: 'f', method: 'tap', params: { x: 0.9, y: 0.9 } });
    const sixth = await agent.nextRequest('tap');
    expect(sixth.params).toEqual({ x: 0.9, y: 0.9, sessionId: 'cap-1' });
    agent.send({ type: 'response', id: sixth.id, ok: true, result: {} });
    expect((await response(peer, 'f')).ok).toBe(true);
    peer.close();
    agent.close();
  });

  it('an agent that stops reading gets no more requests once the relay holds 8 MiB for it: busy, and REST 503', async () => {
    const agent = await TestPeer.agent(relay, agentPat, 'stalled');
    await agent.announce(relay, [device('stall-1')]);
    (agent.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const padding = 'x'.repeat(900 * 1024);
    // several clients, so the in-flight cap (3 each) is not what stops them
    const peers = await Promise.all(Array.from({ length: 20 }, () => client('stall-1')));
    peers.forEach((peer, i) =>
      ['1', '2', '3'].forEach((n) => peer.send({ type: 'request', id: `${i}-${n}`, method: 'type_text', params: { text: padding } })),
    );
    const busy = await Promise.race(
      peers.flatMap((peer, i) => ['1', '2', '3'].map((n) => response(peer, `${i}-${n}`))).map((p) => p.then((r) => r)),
    );
    expect(busy).toEqual(expect.objectContaining({ ok: false, error: { code: 'busy', message: AGENT_BUSY } }));
    const shot = await relay.http().get('/api/v1/sessions/stall-1/screenshot').set('Authorization', `Bearer ${viewPat}`);
    expect(shot.status).toBe(503);
    expect(shot.body).toEqual({ error: AGENT_BUSY });
    for (const peer of peers) peer.close();
    agent.socket.terminate();
  });
});
