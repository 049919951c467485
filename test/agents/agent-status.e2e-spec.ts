import { getRepositoryToken } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AgentResourceSampleEntity } from '../../src/agents/resources/agent-resource-sample.entity';
import { MINUTE_MS } from '../../src/common/time';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';
import { agentToken, device, TestPeer } from './agent-kit';

/** GET /api/v1/agents/status (beyond the spec; docs/agents.md "Agent status"). */
describe('agent status list', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let viewer: TestMember;
  let token: string;

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    viewer = await members.member('Viewer');
    token = await agentToken(members);
  });
  afterAll(() => relay.close());

  const status = async () => (await members.as(viewer, 'get', '/api/v1/agents/status').expect(200).expect('Cache-Control', 'no-store')).body.items;

  it('lists connected agents with their hello and device counts, agents gone offline, and agents known only from samples', async () => {
    const repo = relay.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity));
    const at = relay.clock.nowMs() - 10 * MINUTE_MS;
    await repo.save({ agentName: 'archived', minute: new Date(at - (at % MINUTE_MS)), recordedAt: new Date(at - (at % 1000)), cpuPercent: 5, memPercent: 6 });

    const lab = await TestPeer.agent(relay, token, 'lab');
    await lab.announce(relay, [device('s-1'), device('s-2', 'shutdown')]);
    // A second hello (after a reconnect-free upgrade, say) replaces the first.
    lab.send({ type: 'hello', agent: { version: '1.2.3', os: 'linux 6.1', hostname: 'lab.local' } });
    const gone = await TestPeer.agent(relay, token, 'gone');
    await gone.announce(relay, [device('s-3')]);
    gone.close();
    await gone.closed;

    const expected = [
      { name: 'lab', online: true, version: '1.2.3', os: 'linux 6.1', hostname: 'lab.local', devices: 2, booted: 1 },
      { name: 'archived', online: false, version: null, os: null, hostname: null, devices: 0, booted: 0 },
      { name: 'gone', online: false, version: 'test', os: 'linux', hostname: 'test', devices: 1, booted: 1 },
    ];
    // The hello and the close are seen by the relay a moment after they are sent.
    let items: unknown[] = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      items = await status();
      if (JSON.stringify(items) === JSON.stringify(expected)) break;
    }
    expect(items).toEqual(expected);
    lab.close();
  });

  it('is cookie-only, like GET /agents: a PAT is 401', async () => {
    const pat = await members.pat(viewer, 'view');
    await members.withPat(pat, 'get', '/api/v1/agents/status').expect(401);
  });
});
