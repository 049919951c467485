import Redis from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { ClusterBus } from '../../src/cluster/cluster-bus';
import { ClusterSeal } from '../../src/cluster/cluster-seal';
import { agentToken, device, TestPeer, until } from '../agents/agent-kit';
import { ChildRelay, startChildRelay } from '../robustness/support/child-relay';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { eventually } from '../webhooks/support/webhook-helpers';
import { ClusterTestEnv, clusterTestEnv } from './cluster-env';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(64)]);

/**
 * Issue 22 item 4: Redis is a trust boundary. Whoever can publish on it (a raw client here, as
 * `redis-cli publish` would) must neither stop an instance nor make an agent act; only an instance
 * holding the cluster secret is heard. Two instances in this process (A holds the agent, B is the
 * genuine peer) and one relay process of its own, whose death an unhandled rejection would be.
 */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'Redis as a trust boundary', () => {
  let cluster: ClusterTestEnv;
  let a: TestRelay;
  let b: TestRelay;
  let attacker: Redis;
  let members: MemberFactory;
  let admin: TestMember;
  let agent: TestPeer;
  const rejections: unknown[] = [];
  const recordRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', recordRejection);
    cluster = await clusterTestEnv();
    a = await startTestRelay(cluster.env);
    b = await startTestRelay(cluster.env);
    attacker = new Redis(REDIS_URL);
    members = new MemberFactory(a);
    admin = await members.admin();
    agent = await TestPeer.agent(a, await agentToken(members, admin), 'agent-on-a');
    await agent.announce(a, [device('trust-1')]);
    await eventually(async () => ((await b.http().get('/api/v1/devices').set('Cookie', admin.cookie)).body.items?.length === 1) || undefined, 10_000);
  }, 60_000);

  afterAll(async () => {
    process.off('unhandledRejection', recordRejection);
    agent?.close();
    attacker?.disconnect();
    await a?.close();
    await b?.close();
    await cluster?.dispose();
  });

  const requestChannelOf = (relay: TestRelay) => `${cluster.prefix}rpc:request:${relay.app.get(ClusterBus).instanceId}`;
  const logged = (pattern: RegExp) => [a, b].some((r) => r.logger.buffer.tail(500).some((line) => pattern.test(line)));
  const forgedTap = (id = randomUUID()) =>
    JSON.stringify({ id, replyTo: b.app.get(ClusterBus).instanceId, agentName: 'agent-on-a', method: 'tap', params: { sessionId: 'trust-1', x: 0.5, y: 0.5 }, timeoutMs: 5000 });

  /** A screenshot through B, answered by the agent on A: the genuine path works, and is the next request the agent sees. */
  async function screenshotThroughB(): Promise<void> {
    const shot = b.http().get('/api/v1/sessions/trust-1/screenshot').set('Cookie', admin.cookie).parse(rawBody).then((r) => r);
    const request = await agent.nextRequest();
    expect(request.method).toBe('screenshot');
    agent.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, PNG));
    const res = await shot;
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, PNG)).toBe(0);
  }

  it('garbage on an instance\'s request channel (not JSON, oversized, wrong shape) is logged and dropped; the instance keeps serving', async () => {
    const channel = requestChannelOf(a);
    await attacker.publish(channel, 'not json');
    await attacker.publish(channel, Buffer.alloc(8 * 1024 * 1024, 0x7b));
    await attacker.publish(channel, JSON.stringify({ id: 7, method: ['tap'], padding: 'x'.repeat(100) }));
    await until(() => logged(new RegExp(`Dropped a message on ${channel}: too short to be signed; starts \\\\"not json\\\\"`)));
    await until(() => logged(/Dropped a message on .*: 8388608 bytes, over the limit for this channel; starts \\"\{\{\{/));
    await until(() => logged(/Dropped a message on .*: bad signature; starts \\"\{\\\\\\"id\\\\\\":7/));
    expect(rejections).toEqual([]);
    await a.http().get('/api/v1/health').expect(200);
    await screenshotThroughB();
  });

  it('a well-formed request unsigned, signed with another secret, or signed but of the wrong shape does not reach the agent; a real peer\'s does', async () => {
    const channel = requestChannelOf(a);
    await attacker.publish(channel, forgedTap());
    await attacker.publish(channel, new ClusterSeal(randomBytes(32), randomUUID()).seal(channel, [Buffer.from(forgedTap())]));
    const holder = new ClusterSeal(Buffer.from(cluster.secret), randomUUID());
    const wrongShape = JSON.stringify({ ...JSON.parse(forgedTap()), timeoutMs: 'soon' });
    await attacker.publish(channel, holder.seal(channel, [Buffer.from(wrongShape)]));
    await until(() => logged(/Dropped a message on .*: timeoutMs: Invalid input: expected number, received string/));
    await screenshotThroughB();
    await expect(agent.next((m) => m.json?.method === 'tap', 300)).rejects.toThrow('no matching frame arrived');
    expect(logged(/rpc:request:.*: bad signature; starts/)).toBe(true);
  });

  it('a genuine request replayed, or signed with the secret but old, does not reach the agent', async () => {
    const channel = requestChannelOf(a);
    const listener = new Redis(REDIS_URL);
    try {
      const captured: Buffer[] = [];
      listener.on('messageBuffer', (_c: Buffer, message: Buffer) => captured.push(message));
      await listener.subscribe(channel);
      await screenshotThroughB();
      expect(captured).toHaveLength(1);
      await attacker.publish(channel, captured[0]);
      await until(() => logged(/rpc:request:.*: replayed; starts/));
    } finally {
      listener.disconnect();
    }
    const late = new ClusterSeal(Buffer.from(cluster.secret), randomUUID(), () => Date.now() - 120_000);
    await attacker.publish(channel, late.seal(channel, [Buffer.from(forgedTap())]));
    await until(() => logged(/rpc:request:.*: stale or from the future; starts/));
    await screenshotThroughB();
    await expect(agent.next((m) => m.json?.method === 'tap', 300)).rejects.toThrow('no matching frame arrived');
  });

  it('values in the shared directory that do not fit are logged and ignored; the device list still answers', async () => {
    const online = `${cluster.prefix}agents:online`;
    const devices = `${cluster.prefix}agents:devices`;
    await attacker.hset(devices, 'forged-agent', '{"not":"a list"}', 'bad name!', '[]');
    await attacker.hset(online, 'agent-on-a', 'not-an-instance');
    try {
      const res = await b.http().get('/api/v1/devices').set('Cookie', admin.cookie).expect(200);
      expect(res.body.items).toEqual([expect.objectContaining({ session_id: 'trust-1', agent: 'agent-on-a', agent_online: false })]);
      expect(logged(/Ignored the value of .*agents:devices\[forged-agent\] in Redis: message: Invalid input: expected array, received object/)).toBe(true);
      expect(logged(/Ignored the value of .*agents:devices\[bad name!\] in Redis: message: Invalid string/)).toBe(true);
      expect(logged(/Ignored the value of .*agents:online\[agent-on-a\] in Redis: message: Invalid UUID/)).toBe(true);
      // Nowhere to send it: the agent is offline as far as B can tell.
      const shot = await b.http().get('/api/v1/sessions/trust-1/screenshot').set('Cookie', admin.cookie).expect(502);
      expect(shot.body).toEqual({ error: expect.any(String) });
    } finally {
      await attacker.hdel(devices, 'forged-agent', 'bad name!');
      await attacker.hset(online, 'agent-on-a', a.app.get(ClusterBus).instanceId);
    }
    await screenshotThroughB();
  });

  it('the relay process keeps running after garbage on its request channel', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-trust-'));
    let child: ChildRelay | undefined;
    try {
      child = await startChildRelay(dataDir, cluster.env, 120_000);
      const known = new Set([a, b].map(requestChannelOf));
      const channel = await eventually(async () => {
        const channels = (await attacker.pubsub('CHANNELS', `${cluster.prefix}rpc:request:*`)) as string[];
        return channels.find((c) => !known.has(c));
      }, 10_000, 'the relay process\'s request channel');
      await attacker.publish(channel, 'not json');
      await until(() => /Dropped a message on .*: too short to be signed/.test(child!.output()), 10_000);
      expect(child.process.exitCode).toBeNull();
      expect((await fetch(`${child.url}/api/v1/health`)).status).toBe(200);
    } finally {
      await child?.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);

  it('start-up with Redis but without the cluster secret, or with a short one, fails naming SVC_CLUSTER_SECRET', async () => {
    const { SVC_CLUSTER_SECRET: _secret, ...withoutSecret } = cluster.env;
    await expect(startTestRelay(withoutSecret)).rejects.toThrow(
      /^Invalid configuration SVC_CLUSTER_SECRET: expected at least 32 characters, the same on every instance, alongside SVC_REDIS_URL/,
    );
    await expect(startTestRelay({ ...withoutSecret, SVC_CLUSTER_SECRET: 'short' })).rejects.toThrow(/SVC_CLUSTER_SECRET: .*got "5 characters"/);
  });
});
