import { writeFileSync } from 'node:fs';
import { simulatorBuild } from '../cli/build-fixtures';
import { forgeConfigPath, until } from '../forges/support/forge-relay';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

/**
 * The builds list's `gate` filter (issue 38, docs/release-gate.md "The inbox's filter"): the relay
 * filters every build by its gate's state (builds.gate_state, kept by the release-gate module), with
 * the total of every match, pages, other filters beside it, and a sentence for a wrong value.
 */
describe('GET /builds?gate=', () => {
  const config = forgeConfigPath();
  beforeAll(() => writeFileSync(config, JSON.stringify({ releaseGate: { default: { approvals: { QA: 1 } } } })));
  const ctx = useTestRelay({ SVC_CONFIG: config });

  let admin: TestMember;
  let qa: TestMember;
  beforeAll(async () => {
    admin = await ctx.members.admin();
    qa = await ctx.members.member('QA');
  });

  const list = async (query: string) => {
    const { body } = await ctx.members.as(qa, 'get', `/api/v1/builds?${query}`).expect(200);
    return { ids: (body.items as { id: number }[]).map((b) => b.id), total: body.total as number };
  };
  const upload = async (bundleId: string) => {
    const build = await simulatorBuild({ bundleId });
    return (await ctx.members.as(admin, 'post', '/api/v1/builds').attach('file', build.path).expect(201)).body.id as number;
  };

  it('lists the builds whose gate is in the state asked, across pages, beside the other filters', async () => {
    const [a, b, c] = [await upload('com.example.gate.a'), await upload('com.example.gate.b'), await upload('com.example.gate.c')];
    // Each upload's gate is decided after its answer (needs 1 QA approval: failed).
    await until('three gates failed', async () => (await list('gate=failed')).total === 3);
    expect(await list('gate=failed')).toEqual({ ids: [c, b, a], total: 3 });

    await ctx.members.as(qa, 'post', `/api/v1/builds/${b}/reviews`).send({ verdict: 'approve' }).expect(201);
    // The review's answer waits for its gate: the list reads it at once.
    expect(await list('gate=passed')).toEqual({ ids: [b], total: 1 });
    expect(await list('gate=failed')).toEqual({ ids: [c, a], total: 2 });
    expect(await list('gate=pending')).toEqual({ ids: [], total: 0 });
    expect(await list('gate=failed&limit=1&page=1')).toEqual({ ids: [a], total: 2 });
    expect(await list('gate=failed&platform=android')).toEqual({ ids: [], total: 0 });
    expect(await list('gate=failed&platform=ios&sort=version_name&dir=asc')).toEqual({ ids: [a, c], total: 2 });
    expect(await list('gate=failed&search=gate.c')).toEqual({ ids: [c], total: 1 });
    expect((await list('')).total).toBe(3);
  });

  it('refuses any other value with a sentence', async () => {
    for (const value of ['red', 'none', 'FAILED', '']) {
      const res = await ctx.members.as(qa, 'get', `/api/v1/builds?gate=${value}`).expect(400);
      expect(res.body).toEqual({ error: 'gate must be one of pending, passed, failed (leave it out for every build)' });
    }
  });
});
