import { encodeBinaryFrame } from '../../src/agents/protocol/agent-protocol';
import { AgentDirectory } from '../../src/agents/agent-directory.service';
import { agentToken, device, TestPeer, until } from '../agents/agent-kit';
import { describeUnless } from '../support/describe-unless';
import { MemberFactory, TestMember } from '../support/factory';
import { rawBody } from '../support/raw-body';
import { PG_ADMIN_URL, REDIS_URL, unreachable } from '../support/reachable';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { ClusterTestEnv, clusterTestEnv } from './cluster-env';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

/** Issue 36 item 9 across instances: an owner connected to A keeps its sessionId when an agent on B lists it. */
describeUnless(unreachable([PG_ADMIN_URL, REDIS_URL]), 'two relay instances: a sessionId stays with its connected owner', () => {
  let cluster: ClusterTestEnv;
  let a: TestRelay;
  let b: TestRelay;
  let admin: TestMember;
  let token: string;

  beforeAll(async () => {
    cluster = await clusterTestEnv();
    a = await startTestRelay(cluster.env);
    b = await startTestRelay(cluster.env);
    const members = new MemberFactory(a);
    admin = await members.admin();
    token = await agentToken(members, admin);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.dispose();
  });

  const screenshotThroughB = async (sessionId: string, answering: TestPeer) => {
    const res = b.http().get(`/api/v1/sessions/${sessionId}/screenshot`).set('Cookie', admin.cookie).buffer(true).parse(rawBody).then((r) => r);
    const request = await answering.nextRequest('screenshot');
    answering.send(encodeBinaryFrame({ type: 'response', id: request.id, ok: true, result: { mime: 'image/png' } }, PNG));
    expect((await res).status).toBe(200);
  };

  it('refuses the sessionId to an agent on B while its owner is connected to A, and gives it once the owner left', async () => {
    const owner = await TestPeer.agent(a, token, 'cluster-owner');
    await owner.announce(a, [device('cluster-owned')]);
    const impostor = await TestPeer.agent(b, token, 'cluster-impostor');
    // The impostor's own device comes in the same message: once it is known, the whole list was handled.
    impostor.send({ type: 'devices', devices: [device('cluster-owned'), device('cluster-impostor-1')] });
    await until(() => b.app.get(AgentDirectory).locate('cluster-impostor-1')?.connection);

    expect(b.app.get(AgentDirectory).locate('cluster-owned')?.agentName).toBeUndefined();
    const warning = () => b.logger.buffer.tail(200).find((line) => line.includes('cluster-impostor') && line.includes('cluster-owned'));
    await until(warning);
    expect(warning()).toContain('cluster-owner');
    await screenshotThroughB('cluster-owned', owner);
    await screenshotThroughB('cluster-impostor-1', impostor);

    owner.close();
    await owner.closed;
    const offline = async () =>
      ((await b.http().get('/api/v1/devices').set('Cookie', admin.cookie)).body.items as { session_id: string; agent_online: boolean }[]).some(
        (d) => d.session_id === 'cluster-owned' && !d.agent_online,
      );
    for (let i = 0; i < 100 && !(await offline()); i++) await new Promise((r) => setTimeout(r, 20));
    impostor.send({ type: 'devices', devices: [device('cluster-owned'), device('cluster-impostor-1')] });
    await until(() => b.app.get(AgentDirectory).locate('cluster-owned')?.agentName === 'cluster-impostor');
    await screenshotThroughB('cluster-owned', impostor);
    impostor.close();
    await impostor.closed;
  });
});
