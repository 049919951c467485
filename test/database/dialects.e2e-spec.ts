import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AgentResourceSampleEntity } from '../../src/agents/resources/agent-resource-sample.entity';
import { simulatorBuild } from '../cli/build-fixtures';
import type { TestMember } from '../support/factory';
import { useTestRelay } from '../support/use-relay';

/**
 * What SQLite and PostgreSQL must answer alike (docs/database.md). Run on both: `npx jest` (SQLite)
 * and `npm run test:postgres` (whose test databases sort with ICU en-US, as many installs do, so a
 * locale-dependent query shows up here).
 */
describe('the same answers on SQLite and PostgreSQL', () => {
  const ctx = useTestRelay();
  // U+FF20 and U+1D7D8: bytewise (and by code point) the second sorts last, by UTF-16 unit first.
  // 'alpha-1' twice: a tie, broken by id in the list's direction.
  const versions = ['alpha-1', 'Beta-2', 'École-3', '1.0-rc', '\uff20-4', '\u{1d7d8}-5', 'alpha-1', '1.0.1'];
  const ids: Record<string, number> = {};
  let qa: TestMember;
  let pat: string;

  beforeAll(async () => {
    qa = await ctx.members.member('QA');
    pat = await ctx.members.pat(qa, 'builds:write');
    for (const [i, version] of versions.entries()) {
      const build = await simulatorBuild({ bundleId: 'com.example.dialects', version, buildNumber: String(i + 1) });
      const res = await ctx.members.withPat(pat, 'post', '/api/v1/builds').attach('file', build.path);
      expect({ version, status: res.status, error: res.body.error }).toEqual({ version, status: 201, error: undefined });
      ids[version] = res.body.id;
    }
  });

  const versionsOf = async (query: string) => {
    const res = await ctx.members.withPat(pat, 'get', `/api/v1/builds${query}`).expect(200);
    return (res.body.items as Array<{ version_name: string }>).map((b) => b.version_name);
  };

  it('sorts version names bytewise (upper case before lower case, ASCII before other letters)', async () => {
    const bytewise = [...versions].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(bytewise).toEqual(['1.0-rc', '1.0.1', 'Beta-2', 'alpha-1', 'alpha-1', 'École-3', '\uff20-4', '\u{1d7d8}-5']);
    expect(await versionsOf('?sort=version_name&dir=asc')).toEqual(bytewise);
    expect(await versionsOf('?sort=version_name&dir=desc')).toEqual([...bytewise].reverse());
    const alphaIds = async (dir: string) =>
      ((await ctx.members.withPat(pat, 'get', `/api/v1/builds?sort=version_name&dir=${dir}&q=alpha`).expect(200)).body.items as { id: number }[]).map((b) => b.id);
    const [first, second] = await alphaIds('asc');
    expect(first).toBeLessThan(second);
    expect(await alphaIds('desc')).toEqual([second, first]);
  });

  it('q matches the version name ignoring the case of ASCII letters, on both sides alike', async () => {
    expect(await versionsOf('?q=BETA')).toEqual(['Beta-2']);
    expect(await versionsOf('?q=Alpha')).toEqual(['alpha-1', 'alpha-1']);
    expect(await versionsOf('?q=%C3%89COLE')).toEqual(['École-3']); // "ÉCOLE": É as written, the rest folded
    expect(await versionsOf('?q=%C3%A9cole')).toEqual([]); // "école": é is not folded to É (SQLite LOWER is ASCII only)
    expect(await versionsOf('?q=1.0_')).toEqual([]); // _ and % are literal
  });

  it('lists agent names bytewise', async () => {
    const repo = ctx.relay.app.get<Repository<AgentResourceSampleEntity>>(getRepositoryToken(AgentResourceSampleEntity));
    const minute = new Date(ctx.relay.clock.nowMs() - (ctx.relay.clock.nowMs() % 60_000));
    for (const agentName of ['alpha', 'Zeta', 'beta']) {
      await repo.insert({ agentName, minute, recordedAt: minute, cpuPercent: 12.5, memPercent: 50 });
    }
    const res = await ctx.members.as(qa, 'get', '/api/v1/agents').expect(200);
    expect(res.body).toEqual(['Zeta', 'alpha', 'beta']);
  });

  it('reads counts, ids and times (bigint on PostgreSQL) back as numbers and dates', async () => {
    const build = (await ctx.members.withPat(pat, 'get', `/api/v1/builds/${ids['Beta-2']}`).expect(200)).body;
    expect(build.id).toBe(ids['Beta-2']);
    expect(typeof build.app_id).toBe('number');
    const page = (await ctx.members.withPat(pat, 'get', '/api/v1/builds?limit=2').expect(200)).body;
    expect(page.total).toBe(versions.length);
    expect(typeof page.total).toBe('number');
    const apps = (await ctx.members.as(qa, 'get', '/api/v1/apps').expect(200)).body;
    expect(apps.items).toEqual([
      expect.objectContaining({ id: build.app_id, latest_build_id: ids['1.0.1'], latest_uploaded_at: expect.stringMatching(/^\d{4}-.*Z$/) }),
    ]);
    expect(build.uploaded_at).toBe(new Date(Date.parse(build.uploaded_at)).toISOString());
    const migrations = await ctx.relay.app.get(DataSource).query('SELECT name FROM migrations');
    expect(migrations.map((m: { name: string }) => m.name)).toContain('PostgresByteOrder1700000005000');
  });
});
