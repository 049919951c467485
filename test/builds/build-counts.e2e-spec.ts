import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import { MemberFactory, TestMember } from '../support/factory';
import { startTestRelay, TestRelay } from '../support/test-relay';

/**
 * GET /builds takes its `total` from `build_counts`, which triggers on `builds` keep exact
 * (docs/performance.md). Every kind of write the relay makes must keep it equal to counting the
 * rows: uploads, status changes, purges, an app's deletion (a cascade), and a rebuilt table
 * (a later migration that drops the triggers fails here).
 */
describe('builds: the list total stays exact through every write', () => {
  let relay: TestRelay;
  let members: MemberFactory;
  let qa: TestMember;
  let pat: string;
  let db: DataSource;
  const ids: number[] = [];

  beforeAll(async () => {
    relay = await startTestRelay();
    members = new MemberFactory(relay);
    qa = await members.member('QA');
    pat = await members.pat(qa, 'builds:write');
    db = relay.app.get(DataSource);
  });
  afterAll(() => relay.close());

  const upload = async (file: string, fields: Record<string, string> = {}) => {
    relay.clock.advance(1000);
    const res = await attachBuild(members.withPat(pat, 'post', '/api/v1/builds'), file, fields).expect(201);
    ids.push(res.body.id);
    return res.body as { id: number; app_id: number };
  };

  /** Every filter combination the list offers (except q), answered by the API and by COUNT(*). */
  const expectTotalsMatchRows = async () => {
    const apps = (await db.query('SELECT DISTINCT app_id FROM builds')).map((r: { app_id: number }) => Number(r.app_id));
    const filters: [string, string, unknown][] = [];
    for (const platform of [undefined, 'ios', 'android']) {
      for (const status of [undefined, 'Backlog', 'In Progress', 'Done', 'Rejected']) {
        for (const appId of [undefined, ...apps, 999_999]) {
          const query = new URLSearchParams();
          const where: string[] = [];
          const values: unknown[] = [];
          const bind = (column: string, value: unknown) => {
            values.push(value);
            where.push(`${column} = ${db.options.type === 'postgres' ? `$${values.length}` : '?'}`);
          };
          if (platform) query.set('platform', platform), bind('platform', platform);
          if (status) query.set('status', status), bind('status_label', status);
          if (appId !== undefined) query.set('app_id', String(appId)), bind('app_id', appId);
          const [row] = await db.query(`SELECT COUNT(*) AS n FROM builds${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, values);
          filters.push([query.toString(), String(Number(row.n)), null]);
        }
      }
    }
    for (const [query, expected] of filters) {
      const res = await members.withPat(pat, 'get', `/api/v1/builds?${query}&limit=1`).expect(200);
      expect(`${query} → ${res.body.total}`).toBe(`${query} → ${expected}`);
    }
    // No leftover zero groups either.
    const [{ n }] = await db.query('SELECT COUNT(*) AS n FROM build_counts WHERE n <= 0');
    expect(Number(n)).toBe(0);
  };

  it('counts uploads with and without a status, on both platforms and several apps', async () => {
    await upload('literal-label.apk', { status: 'Backlog' });
    await upload('literal-label.apk');
    await upload('string-label.apk', { status: 'Done' });
    await upload('xml-root.app.zip', { status: 'Done' });
    await upload('binary-root.tar.gz');
    await expectTotalsMatchRows();
  });

  it('follows status changes, including to and from unset', async () => {
    await members.as(qa, 'patch', `/api/v1/builds/${ids[0]}`).send({ status_label: 'Rejected' }).expect(200);
    await members.as(qa, 'patch', `/api/v1/builds/${ids[1]}`).send({ status_label: 'In Progress' }).expect(200);
    await members.as(qa, 'patch', `/api/v1/builds/${ids[2]}`).send({ status_label: null }).expect(200);
    await members.as(qa, 'patch', `/api/v1/builds/${ids[3]}`).send({ version_label: 'only the label' }).expect(200);
    await expectTotalsMatchRows();
  });

  it('follows an app deletion (its builds go by cascade) and a purge', async () => {
    const { app_id } = (await members.withPat(pat, 'get', `/api/v1/builds/${ids[3]}`).expect(200)).body;
    await members.as(qa, 'delete', `/api/v1/apps/${app_id}`).expect(200);
    await members.as(qa, 'post', `/api/v1/builds/${ids[4]}/schedule-deletion`).expect(200);
    relay.clock.advance(30 * 86_400_000);
    const { ScheduledPurgesService } = await import('../../src/maintenance/scheduled-purges.service');
    await relay.app.get(ScheduledPurgesService).runAll();
    await members.withPat(pat, 'get', `/api/v1/builds/${ids[4]}`).expect(404);
    await expectTotalsMatchRows();
  });

  it('keeps exact through concurrent opposite status changes in one app (PostgreSQL: no deadlock between the two count rows)', async () => {
    // Two builds of one app and platform swap Done and Rejected at the same time, over and over: each
    // change moves one count from one (app, platform, status) row to the other, in opposite directions.
    const [a, b] = [ids[0], ids[1]];
    const reviewer = await members.member('QA'); // qa's session ran out with the purge test's 30 days
    await members.as(reviewer, 'patch', `/api/v1/builds/${a}`).send({ status_label: 'Rejected' }).expect(200);
    await members.as(reviewer, 'patch', `/api/v1/builds/${b}`).send({ status_label: 'Done' }).expect(200);
    for (let round = 0; round < 80; round++) {
      const [toA, toB] = round % 2 ? ['Rejected', 'Done'] : ['Done', 'Rejected'];
      const answers = await Promise.all([
        members.as(reviewer, 'patch', `/api/v1/builds/${a}`).send({ status_label: toA }),
        members.as(reviewer, 'patch', `/api/v1/builds/${b}`).send({ status_label: toB }),
      ]);
      expect(answers.map((res) => `${res.status} ${res.body.error ?? ''}`)).toEqual(['200 ', '200 ']);
    }
    await expectTotalsMatchRows();
  });

  it('agrees with counting for a search term, which is counted from the rows', async () => {
    const all = (await members.withPat(pat, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as { version_name: string | null }[];
    const term = all.find((b) => b.version_name)!.version_name!.slice(0, 2);
    const expected = all.filter((b) => b.version_name?.toLowerCase().includes(term.toLowerCase())).length;
    expect((await members.withPat(pat, 'get', `/api/v1/builds?q=${encodeURIComponent(term)}`).expect(200)).body.total).toBe(expected);
  });
});
