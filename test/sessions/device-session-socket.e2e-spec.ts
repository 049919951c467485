import { AgentDaemon } from '../../src/agent-daemon/agent-daemon';
import { fakePng } from '../../src/agent-daemon/backends/fake-backend';
import { decodeBinaryFrame, encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, device, startFakeAgent, TestPeer, upgradeRefusal, wsUrl } from '../agents/agent-kit';

const sessionPath = (id: string) => `/api/v1/sessions/${id}/connect`;

describe('device-session sockets (agent-protocol §3)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let viewPat: string;
  let token: string;

  beforeAll(async () => {
    relay = await startTestRelay({ SVC_AGENT_REQUEST_TIMEOUT_MS: '300' });
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    viewPat = await members.pat(qa, 'view');
    token = await agentToken(members);
  });
  afterAll(() => relay.close());

  const client = async (sessionId: string, headers: Record<string, string> = { Authorization: `Bearer ${viewPat}` }) => {
    const peer = new TestPeer(wsUrl(relay, sessionPath(sessionId)), headers);
    await peer.opened;
    return peer;
  };

  describe('forwarding through a hand-driven agent', () => {
    let agent: TestPeer;
    beforeEach(async () => {
      agent = await TestPeer.agent(relay, token, 'forwarder');
      await agent.announce(relay, [device('fw-1'), device('fw-2')]);
    });
    afterEach(() => agent.close());

    it('rewrites ids both ways, adds the sessionId, and keeps two clients apart', async () => {
      const one = await client('fw-1');
      const two = await client('fw-1', { Cookie: qa.cookie });
      one.send({ type: 'request', id: 'c1', method: 'tap', params: { x: 0.5, y: 0.8 } });
      two.send({ type: 'request', id: 'c1', method: 'swipe', params: { from: [0, 0], to: [1, 1] } });
      const tap = await agent.nextRequest('tap');
      const swipe = await agent.nextRequest('swipe');
      expect(tap.id).not.toBe('c1');
      expect(swipe.id).not.toBe(tap.id);
      expect(tap.params).toEqual({ x: 0.5, y: 0.8, sessionId: 'fw-1' });
      expect(swipe.params.sessionId).toBe('fw-1');
      agent.send({ type: 'response', id: swipe.id, ok: true, result: { swiped: true } });
      agent.send({ type: 'response', id: tap.id, ok: false, error: { code: 'unsupported', message: 'no taps today' } });
      expect((await one.next()).json).toEqual({
        type: 'response',
        id: 'c1',
        ok: false,
        error: { code: 'unsupported', message: 'no taps today' },
      });
      expect((await two.next()).json).toEqual({ type: 'response', id: 'c1', ok: true, result: { swiped: true } });
      one.close();
      two.close();
    });

    it('forwards a binary answer as a binary frame under the client id', async () => {
      const one = await client('fw-2');
      one.send({ type: 'request', id: 7, method: 'screenshot', params: { format: 'png' } });
      const request = await agent.nextRequest('screenshot');
      agent.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, Buffer.from('pixels')));
      const answer = await one.next();
      expect(answer.isBinary).toBe(true);
      const frame = decodeBinaryFrame(answer.data)!;
      expect(frame.header).toEqual({ type: 'response', id: 7, ok: true, result: { mime: 'image/png' } });
      expect(frame.payload.toString()).toBe('pixels');
      one.close();
    });

    it('fans agent events out to every client of that session only', async () => {
      const a = await client('fw-1');
      const b = await client('fw-1');
      const other = await client('fw-2');
      agent.send({ type: 'event', sessionId: 'fw-1', event: 'log', data: { line: 'hello' } });
      const expected = { type: 'event', sessionId: 'fw-1', event: 'log', data: { line: 'hello' } };
      expect((await a.next()).json).toEqual(expected);
      expect((await b.next()).json).toEqual(expected);
      await expect(other.next(() => true, 200)).rejects.toThrow();
      for (const c of [a, b, other]) c.close();
    });

    it('answers a request the agent never answers with a failed response, and ignores malformed client frames', async () => {
      const one = await client('fw-1');
      one.send('{oops');
      one.send({ type: 'request', method: 'tap' });
      one.send({ type: 'request', id: 'slow', method: 'launch_app', params: { bundleId: 'x' } });
      await agent.nextRequest('launch_app');
      const answer = await one.next();
      expect(answer.json).toMatchObject({ type: 'response', id: 'slow', ok: false, error: { code: 'failed' } });
      one.close();
    });

    it('closes every client of the agent with 4502 when the agent goes away', async () => {
      const a = await client('fw-1');
      const b = await client('fw-2');
      agent.socket.terminate();
      expect((await a.closed).code).toBe(4502);
      expect((await b.closed).code).toBe(4502);
    });
  });

  it('works end to end with the reference agent: screenshot bytes and tap events', async () => {
    const fake: AgentDaemon = await startFakeAgent(relay, token, 'ref');
    const a = await client('fake-android-ref');
    const b = await client('fake-android-ref');
    a.send({ type: 'request', id: 'shot', method: 'screenshot', params: { format: 'png' } });
    const shot = await a.next();
    expect(Buffer.compare(decodeBinaryFrame(shot.data)!.payload, fakePng('fake-android-ref'))).toBe(0);
    a.send({ type: 'request', id: 'tap1', method: 'tap', params: { x: 0.25, y: 0.5 } });
    expect((await a.next((m) => m.json?.type === 'response')).json).toEqual({ type: 'response', id: 'tap1', ok: true, result: {} });
    const tapped = { type: 'event', sessionId: 'fake-android-ref', event: 'tapped', data: { x: 0.25, y: 0.5 } };
    expect((await a.next((m) => m.json?.type === 'event')).json).toEqual(tapped);
    expect((await b.next((m) => m.json?.type === 'event')).json).toEqual(tapped);
    await fake.stop();
    expect((await a.closed).code).toBe(4502);
    expect((await b.closed).code).toBe(4502);
  });

  describe('upgrade refusals', () => {
    let agent: TestPeer;
    beforeAll(async () => {
      agent = await TestPeer.agent(relay, token, 'refusals');
      await agent.announce(relay, [device('rf-1')]);
    });
    afterAll(() => agent.close());

    const refuse = (id: string, headers: Record<string, string>) => upgradeRefusal(wsUrl(relay, sessionPath(id)), headers);

    it('401 without credentials, 403 for a PAT without view, 404 for an unknown session', async () => {
      expect(await refuse('rf-1', {})).toEqual({ status: 401, body: { error: 'Unauthorized' } });
      const write = await members.pat(qa, 'builds:write');
      expect(await refuse('rf-1', { Authorization: `Bearer ${write}` })).toEqual({ status: 403, body: { error: 'Insufficient scope' } });
      const unknown = await refuse('nope', { Authorization: `Bearer ${viewPat}` });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: expect.any(String) });
    });

    it('refuses a cookie socket opened from another site (CSWSH), accepts one from the relay itself', async () => {
      const evil = await refuse('rf-1', { Cookie: qa.cookie, Origin: 'http://evil.example' });
      expect(evil.status).toBe(403);
      const own = await client('rf-1', { Cookie: qa.cookie, Origin: relay.url });
      own.close();
    });

    it('closes a cookie socket when that browser session signs out, and a PAT socket when its token is revoked', async () => {
      const member = await members.member('Developer');
      const cookieSocket = await client('rf-1', { Cookie: member.cookie });
      await members.as(member, 'post', '/api/v1/auth/logout').expect(200);
      expect((await cookieSocket.closed).code).toBe(4001);

      const cookie = await members.login(member.email);
      const pat = await members.pat({ ...member, cookie }, 'view');
      const patSocket = await client('rf-1', { Authorization: `Bearer ${pat}` });
      const tokens = await relay.http().get('/api/v1/tokens').set('Cookie', cookie).expect(200);
      await relay.http().delete(`/api/v1/tokens/${tokens.body[0].id}`).set('Cookie', cookie).expect(204);
      expect((await patSocket.closed).code).toBe(4001);
    });
  });
});
