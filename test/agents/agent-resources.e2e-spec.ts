import { getRepositoryToken } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AgentResourceSampleEntity } from '../../src/agents/resources/agent-resource-sample.entity';
import { AgentResourcesService } from '../../src/agents/resources/agent-resources.service';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, testDialect, TestRelay } from '../support/test-relay';
import { agentToken, TestPeer, until } from './agent-kit';

describe('agent resource history (spec §2, §4 Agents; agent-protocol §2.3)', () => {
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

  /** Moves the relay clock to 10 s past the start of the next minute. */
  const toNextMinute = () => {
    const now = relay.clock.nowMs();
    relay.clock.advance(MINUTE_MS - (now % MINUTE_MS) + 10_000);
  };
  const resources = (name: string, query = '') => members.as(viewer, 'get', `/api/v1/agents/${name}/resources${query}`);

  async function sendSample(peer: TestPeer, cpu: number, mem: number) {
    peer.send({ type: 'resources', cpu_percent: cpu, mem_percent: mem });
    const service = relay.app.get(AgentResourcesService) as unknown as { buffered: Map<string, { cpuPercent: number }> };
    await until(() => [...service.buffered.values()].some((s) => s.cpuPercent === cpu));
  }

  it('keeps one sample per agent per clock minute, the latest, with recorded_at without milliseconds', async () => {
    const peer = await TestPeer.agent(relay, token, 'sampler');
    toNextMinute();
    await sendSample(peer, 10, 20);
    await sendSample(peer, 11, 21);
    await sendSample(peer, 12.5, 61);
    toNextMinute();
    await sendSample(peer, 30, 40);
    const res = await resources('sampler').expect(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({ cpu_percent: 12.5, mem_percent: 61, recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(res.body[1]).toMatchObject({ cpu_percent: 30, mem_percent: 40 });
    expect(Date.parse(res.body[1].recorded_at) - Date.parse(res.body[0].recorded_at)).toBeGreaterThanOrEqual(MINUTE_MS);
    // another sample in the same minute replaces the stored one, even after it was written
    await sendSample(peer, 31, 41);
    const again = await resources('sampler').expect(200);
    expect(again.body).toHaveLength(2);
    expect(again.body[1]).toMatchObject({ cpu_percent: 31, mem_percent: 41 });
    peer.close();
  });

  it('filters by range (1h default, 6h, 24h, 7d) and refuses anything else with 400', async () => {
    const repo = relay.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity));
    const now = relay.clock.nowMs();
    const ages = [30 * MINUTE_MS, 3 * HOUR_MS, 12 * HOUR_MS, 3 * DAY_MS, 8 * DAY_MS];
    await repo.save(
      ages.map((age) => {
        const at = now - age;
        return { agentName: 'ranged', minute: new Date(at - (at % MINUTE_MS)), recordedAt: new Date(at - (at % 1000)), cpuPercent: 1, memPercent: 2 };
      }),
    );
    const count = async (query: string) => (await resources('ranged', query).expect(200)).body.length;
    expect(await count('')).toBe(1);
    expect(await count('?range=1h')).toBe(1);
    expect(await count('?range=6h')).toBe(2);
    expect(await count('?range=24h')).toBe(3);
    expect(await count('?range=7d')).toBe(4);
    for (const bad of ['?range=2h', '?range=', '?range=1H', '?range=1h&range=6h']) {
      const res = await resources('ranged', bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'range must be one of 1h, 6h, 24h, 7d' });
    }
    expect((await resources('never-seen').expect(200)).body).toEqual([]);
  });

  it('lists agents with samples on record, connected or not; cookie only', async () => {
    const res = await members.as(viewer, 'get', '/api/v1/agents').expect(200);
    expect(res.body).toEqual(expect.arrayContaining(['sampler', 'ranged']));
    expect(res.body).toEqual([...res.body].sort());
    const pat = await members.pat(viewer, 'view');
    await members.withPat(pat, 'get', '/api/v1/agents').expect(401);
    await relay.http().get('/api/v1/agents/sampler/resources').expect(401);
  });

  it('answers a 7-day range of 10,080 samples from the (agent, minute) index, and the purge drops samples past 30 days', async () => {
    const repo = relay.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity));
    const now = relay.clock.nowMs();
    const start = now - (now % MINUTE_MS);
    const rows = Array.from({ length: 10_080 }, (_, i) => {
      const minute = start - i * MINUTE_MS;
      return { agentName: 'busy', minute: new Date(minute), recordedAt: new Date(minute + 5000), cpuPercent: i % 100, memPercent: 50 };
    });
    await repo.manager.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 500) await tx.insert(AgentResourceSampleEntity, rows.slice(i, i + 500));
    });
    const res = await resources('busy', '?range=7d').expect(200);
    expect(res.body.length).toBeGreaterThanOrEqual(10_079);
    // "Fast" is a property of the plan, not of this machine's load: the range query (the same
    // predicate and order as AgentResourcesRepository.since) walks the index, with no table scan or sort.
    // SQLite only: this is SQLite's EXPLAIN QUERY PLAN; PostgreSQL's cost-based planner may rightly
    // choose a sequential scan for a range that covers every row of the table, as this one does.
    if (testDialect === 'sqlite') {
      const plan: { detail: string }[] = await repo.query(
        'EXPLAIN QUERY PLAN SELECT * FROM agent_resource_samples WHERE agent_name = ? AND minute >= ? ORDER BY minute ASC',
        ['busy', start - 7 * DAY_MS],
      );
      const details = plan.map((row) => row.detail).join(' | ');
      expect(details).toMatch(/USING INDEX UQ_agent_resource_samples_agent_minute/);
      expect(details).not.toMatch(/TEMP B-TREE|SCAN agent_resource_samples(?! USING)/);
    }

    relay.clock.advance(30 * DAY_MS + 2 * DAY_MS);
    await relay.app.get(ScheduledPurgesService).runAll();
    expect(await repo.countBy({ agentName: 'busy' })).toBe(0);
    const cookie = await members.login(viewer.email); // the old session cookie ran out with the 32 days
    const names = await relay.http().get('/api/v1/agents').set('Cookie', cookie).expect(200);
    expect(names.body).not.toContain('busy');
  });
});
