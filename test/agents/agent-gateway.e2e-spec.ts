import WebSocket from 'ws';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { MemberFactory } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { AGENT_PATH, agentToken, device, TestPeer, until, upgradeRefusal, wsUrl } from './agent-kit';

describe('agent gateway: handshake, replacement, liveness, frames (agent-protocol §1–2)', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let token: string;

  // The default heartbeat (30 s): no test here may lose a healthy socket to a ping missed while a
  // busy machine kept this process from reading its pong. Liveness has its own suite below.
  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    token = await agentToken(members);
  });
  afterAll(() => relay.close());

  const refuse = (headers: Record<string, string>) => upgradeRefusal(wsUrl(relay, AGENT_PATH), headers);

  it('refuses an upgrade without a usable token with a plain 401 { error }', async () => {
    expect(await refuse({ 'X-Svc-Agent-Name': 'a1' })).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    const unknown = await refuse({ Authorization: `Bearer svc_pat_${'x'.repeat(43)}`, 'X-Svc-Agent-Name': 'a1' });
    expect(unknown).toEqual({ status: 401, body: { error: 'Unauthorized' } });
  });

  it('refuses a token without the agent scope, and one whose issuer is no longer an Admin, with 403', async () => {
    const admin = await members.admin();
    const viewOnly = await members.pat(admin, 'view');
    const scope = await refuse({ Authorization: `Bearer ${viewOnly}`, 'X-Svc-Agent-Name': 'a1' });
    expect(scope).toEqual({ status: 403, body: { error: 'Insufficient scope' } });

    const other = await members.member('Admin');
    const otherToken = await agentToken(members, other);
    await members.as(admin, 'patch', `/api/v1/team/members/${other.id}`).send({ role: 'Developer' }).expect(200);
    const demoted = await refuse({ Authorization: `Bearer ${otherToken}`, 'X-Svc-Agent-Name': 'a1' });
    expect(demoted.status).toBe(403);
    expect(demoted.body).toEqual({ error: expect.any(String) });
  });

  it('refuses a missing or malformed agent name with 400', async () => {
    for (const name of [undefined, '', 'has space', 'x'.repeat(65), 'slash/name']) {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
      if (name !== undefined) headers['X-Svc-Agent-Name'] = name;
      const res = await refuse(headers);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('X-Svc-Agent-Name') });
    }
  });

  it('answers an upgrade to an unknown path with 404 instead of hanging', async () => {
    const res = await upgradeRefusal(wsUrl(relay, '/api/v1/agent/nowhere'), { Authorization: `Bearer ${token}` });
    expect(res).toEqual({ status: 404, body: { error: 'Not found' } });
  });

  it('accepts a valid agent, and a second connection with the same name replaces the first with 4000', async () => {
    const first = await TestPeer.agent(relay, token, 'dup');
    const second = await TestPeer.agent(relay, token, 'dup');
    expect((await first.closed).code).toBe(4000);
    expect(second.socket.readyState).toBe(WebSocket.OPEN);
    expect(relay.app.get(AgentDirectory).all().filter((c) => c.name === 'dup')).toHaveLength(1);
    second.close();
    await second.closed;
  });

  it('ignores malformed frames and keeps the socket open and working', async () => {
    const peer = await TestPeer.agent(relay, token, 'garbage');
    peer.send('{not json');
    peer.send(JSON.stringify([1, 2, 3]));
    peer.send({ type: 'devices', devices: 'nope' });
    peer.send({ type: 'resources', cpu_percent: 'high', mem_percent: 500 });
    peer.send(Buffer.from([0, 0, 0, 99, 1, 2])); // binary frame whose header length runs past the end
    peer.send({ type: 'something-new', extra: true });
    peer.send({ type: 'response', id: 'never-asked', ok: true, result: {} });
    await peer.announce(relay, [device('garbage-1')]);
    expect(peer.socket.readyState).toBe(WebSocket.OPEN);
    peer.close();
    await peer.closed;
  });
});

describe('agent gateway: liveness', () => {
  /**
   * A healthy socket is dropped only if this process cannot read its pong for a whole interval; 2 s
   * is far beyond any stall of a busy 2-core CI, and the silent peer is still dropped within 4 s.
   */
  const PING_INTERVAL_MS = 2000;

  it('pings agents and drops one that stops answering with pongs', async () => {
    const relay = await startTestRelay({ SVC_AGENT_PING_INTERVAL_MS: String(PING_INTERVAL_MS) });
    try {
      const members = new MemberFactory(relay);
      const token = await agentToken(members);
      const pings: number[] = [];
      const healthy = await TestPeer.agent(relay, token, 'healthy');
      healthy.socket.on('ping', () => pings.push(Date.now()));
      const silent = await TestPeer.agent(relay, token, 'silent', { autoPong: false });
      await silent.announce(relay, [device('silent-1')]);
      const closed = await silent.closed;
      expect(closed.code).toBe(1006); // terminated, no close frame
      expect(pings.length).toBeGreaterThanOrEqual(1);
      expect(healthy.socket.readyState).toBe(WebSocket.OPEN);
      await until(() => relay.app.get(AgentDirectory).locate('silent-1')?.connection === null);
      const res = await members.as(await members.admin(), 'get', '/api/v1/sessions/silent-1/screenshot');
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'Agent offline' });
      healthy.close();
    } finally {
      await relay.close();
    }
  });
});

describe('agent gateway: message size', () => {
  // Its own relay at the default ping interval: once ws refuses the oversize frame it stops reading,
  // so no pong can arrive, and a 200 ms heartbeat could terminate the socket (1006) before a busy
  // client has read the 1009 close frame.
  it('closes a socket that sends a message over 32 MiB with 1009 and keeps serving', async () => {
    const relay = await startTestRelay();
    try {
      const token = await agentToken(new MemberFactory(relay));
      const peer = await TestPeer.agent(relay, token, 'big');
      peer.send(Buffer.alloc(32 * 1024 * 1024 + 1));
      expect((await peer.closed).code).toBe(1009);
      const again = await TestPeer.agent(relay, token, 'big');
      again.close();
      await again.closed;
    } finally {
      await relay.close();
    }
  });
});

describe('agent gateway: relay shutdown', () => {
  it('closes agent sockets with 1001 when the relay shuts down', async () => {
    const relay = await startTestRelay();
    const members = new MemberFactory(relay);
    const peer = await TestPeer.agent(relay, await agentToken(members), 'bye');
    await relay.close();
    expect((await peer.closed).code).toBe(1001);
  });
});
