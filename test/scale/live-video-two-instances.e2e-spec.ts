import { binaryFramePrefix, decodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { agentToken, device, Received, TestPeer, wsUrl } from '../agents/agent-kit';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { fixtureAccessUnits } from '../support/video-fixture';
import { ClusterTestEnv, clusterTestEnv } from './cluster-env';

const units = fixtureAccessUnits();
const [KEY_UNIT] = units;

const videoFrame = (sessionId: string, seq: number, key: boolean, unit: Buffer) =>
  Buffer.concat([binaryFramePrefix({ type: 'video', sessionId, seq, key, ts: 1000 + seq, size: unit.length }), unit]);
const isFrame = (m: Received) => m.isBinary;
const seqOf = (m: Received) => (decodeBinaryFrame(m.data)!.header as { seq: number }).seq;

/** Live video with the agent on instance A and viewers on A and B (the frames cross Redis once per instance). */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'live video across two instances (PostgreSQL + Redis)', () => {
  let cluster: ClusterTestEnv;
  let a: TestRelay;
  let b: TestRelay;
  let viewer: TestMember;
  let token: string;

  beforeAll(async () => {
    cluster = await clusterTestEnv();
    a = await startTestRelay(cluster.env);
    b = await startTestRelay(cluster.env);
    const members = new MemberFactory(a);
    viewer = await members.member('QA');
    token = await agentToken(members);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.dispose();
  });

  const watch = async (relay: TestRelay, sessionId: string) => {
    const peer = new TestPeer(wsUrl(relay, `/api/v1/sessions/${sessionId}/stream`), { Cookie: viewer.cookie });
    await peer.opened;
    return peer;
  };

  it('a viewer on B gets the agent’s frames from A; the agent stops only when the last viewer anywhere leaves', async () => {
    const agent = await TestPeer.agent(a, token, 'video-on-a');
    await agent.announce(a, [device('xv-1')]);
    const onB = await watch(b, 'xv-1');
    const start = await agent.nextRequest('stream_start');
    expect(start.params).toEqual({ sessionId: 'xv-1', maxBitrate: expect.any(Number) });
    agent.send({ type: 'response', id: start.id, ok: true, result: {} });
    agent.send(videoFrame('xv-1', 0, true, KEY_UNIT));
    agent.send(videoFrame('xv-1', 1, false, units[1]));
    expect((await onB.next()).json).toEqual({ type: 'config', codec: 'avc1.42C00A', width: 100, height: 60 });
    const first = await onB.next(isFrame);
    expect(seqOf(first)).toBe(0);
    expect(decodeBinaryFrame(first.data)!.payload).toEqual(KEY_UNIT);
    expect(seqOf(await onB.next(isFrame))).toBe(1);

    // A viewer on A joins the same stream (replayed group of pictures), without a second start.
    const onA = await watch(a, 'xv-1');
    expect((await onA.next()).json?.type).toBe('config');
    expect([seqOf(await onA.next(isFrame)), seqOf(await onA.next(isFrame))]).toEqual([0, 1]);
    agent.send(videoFrame('xv-1', 2, false, units[2]));
    expect(seqOf(await onA.next(isFrame))).toBe(2);
    expect(seqOf(await onB.next(isFrame))).toBe(2);

    onB.close();
    await onB.closed;
    agent.send(videoFrame('xv-1', 3, false, units[3]));
    expect(seqOf(await onA.next(isFrame))).toBe(3);
    onA.close();
    expect((await agent.nextRequest('stream_stop')).params).toEqual({ sessionId: 'xv-1' });
    const starts = await agent.next((m) => m.json?.method === 'stream_start', 300).catch(() => null);
    expect(starts).toBeNull();
    agent.close();
  });

  it('a viewer on B is closed with the agent’s reason when it cannot stream, and with 4502 when the agent goes away', async () => {
    const agent = await TestPeer.agent(a, token, 'video-on-a-2');
    await agent.announce(a, [device('xv-2'), device('xv-3')]);
    const refused = await watch(b, 'xv-2');
    const start = await agent.nextRequest('stream_start');
    agent.send({ type: 'response', id: start.id, ok: false, error: { code: 'unsupported', message: 'No video here' } });
    expect(await refused.closed).toEqual({ code: 1011, reason: 'No video here' });

    const watching = await watch(b, 'xv-3');
    const again = await agent.nextRequest('stream_start');
    agent.send({ type: 'response', id: again.id, ok: true, result: {} });
    agent.close();
    expect((await watching.closed).code).toBe(4502);
  });
});
