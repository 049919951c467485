import { DataSource } from 'typeorm';
import { attachBuild } from '../support/build-fixtures';
import { within } from '../support/deadline';
import { MemberFactory, TestMember } from '../support/factory';
import { itPostgresOnly, startTestRelay, TestRelay } from '../support/test-relay';
import { BuildsRepository } from '../../src/builds/builds.repository';

/**
 * GET /builds takes its `total` from `build_counts`, which triggers on `builds` keep exact
 * (docs/decisions.md#item-3). Every kind of write the relay makes must keep it equal to counting the
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
    // The counts per upload day (a deep page's seek, migration 1700000027000) are the rows' too, none left at zero.
    const byDay = (rows: Record<string, unknown>[]) => rows.map((r) => `${r.day} ${r.app_id} ${r.platform} ${r.status_key} ${r.n}`);
    const kept = await db.query('SELECT day, app_id, platform, status_key, n FROM build_day_counts ORDER BY day, app_id, platform, status_key');
    const counted = await db.query(
      `SELECT uploaded_at / 86400000 AS day, app_id, platform, COALESCE(status_label, '') AS status_key, COUNT(*) AS n FROM builds
       GROUP BY uploaded_at / 86400000, app_id, platform, COALESCE(status_label, '') ORDER BY 1, 2, 3, 4`,
    );
    expect(byDay(kept)).toEqual(byDay(counted));
    // The builds per upload day (the unfiltered list's seek, migration BuildDayTotals), none at zero.
    const dayTotals = (rows: Record<string, unknown>[]) => rows.map((r) => `${r.day} ${r.n}`);
    const keptTotals = await db.query('SELECT day, n FROM build_day_totals ORDER BY day');
    const countedTotals = await db.query('SELECT uploaded_at / 86400000 AS day, COUNT(*) AS n FROM builds GROUP BY uploaded_at / 86400000 ORDER BY 1');
    expect(dayTotals(keptTotals)).toEqual(dayTotals(countedTotals));
    // The counts per provenance branch (`branch=` alone, migration BuildBranchCounts): the rows', none at zero, and the list's totals.
    const byBranch = (rows: Record<string, unknown>[]) => rows.map((r) => `${r.branch} ${r.n}`);
    const keptBranches = await db.query('SELECT branch, n FROM build_branch_counts ORDER BY branch');
    const countedBranches = await db.query('SELECT branch, COUNT(*) AS n FROM build_provenance WHERE branch IS NOT NULL GROUP BY branch ORDER BY branch');
    expect(byBranch(keptBranches)).toEqual(byBranch(countedBranches));
    for (const branch of [...countedBranches.map((r: { branch: string }) => r.branch), 'no-such-branch']) {
      const [row] = await db.query(`SELECT COUNT(*) AS n FROM build_provenance WHERE branch = ${db.options.type === 'postgres' ? '$1' : '?'}`, [branch]);
      const res = await members.withPat(pat, 'get', `/api/v1/builds?branch=${encodeURIComponent(branch)}&limit=1`).expect(200);
      expect(`${branch} → ${res.body.total}`).toBe(`${branch} → ${Number(row.n)}`);
    }
  };

  it('counts uploads with and without a status, on both platforms and several apps, with and without a branch', async () => {
    await upload('literal-label.apk', { status: 'Backlog', branch: 'main' });
    await upload('literal-label.apk');
    await upload('string-label.apk', { status: 'Done', branch: 'release/1.0' });
    await upload('xml-root.app.zip', { status: 'Done', branch: 'main' });
    await upload('binary-root.tar.gz', { commit: 'abc1234'.padEnd(40, '0') });
    await upload('string-label.apk', { branch: 'main' });
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

  /**
   * A status change locks its build's row (SELECT … FOR UPDATE), then, in its UPDATE's trigger, its
   * two count rows in key order. A deletion of several builds in one statement (an app's deletion,
   * a purge batch) must not hold a count row while it waits for a build row a change holds: it
   * would wait for the change, and the change for it. PostgreSQL fires the AFTER ROW count trigger
   * only once the statement has every row, so the deletion takes its count rows last (a BEFORE
   * trigger, or counts kept row by row in code, deadlock here). The change is held open by hand
   * between its two steps while the deletion runs.
   */
  const deleteDuringHalfDoneChange = async (remove: (appId: number, ids: number[], deleter: TestMember) => Promise<number>) => {
    const deleter = await members.member('QA');
    const tokens = await members.pat(deleter, 'builds:write');
    const upload = (status: string) => attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), 'binary-nested.app.zip', { status }).expect(201);
    // Row order puts the Rejected build first, so a deletion counting as it goes holds that count row.
    const rejected = (await upload('Rejected')).body as { id: number; app_id: number };
    const done = [(await upload('Done')).body.id as number, (await upload('Done')).body.id as number];
    const held = done[1];
    const change = db.createQueryRunner();
    await change.connect();
    try {
      await change.startTransaction();
      await change.query('SELECT id FROM builds WHERE id = $1 FOR UPDATE', [held]);
      const deletion = remove(rejected.app_id, [rejected.id, ...done], deleter);
      deletion.catch(() => undefined); // awaited below; a rejection is the failure this test looks for
      for (let waited = 0; ; waited += 20) {
        const [{ n }] = await db.query(`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (Number(n) > 0) break;
        if (waited > 10_000) throw new Error('the deletion never waited for the held build');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The change's UPDATE: its trigger takes the Done and then the Rejected count row.
      await change.query('UPDATE builds SET status_label = $1 WHERE id = $2', ['Rejected', held]);
      await change.commitTransaction();
      expect(await deletion).toBe(3);
    } finally {
      if (change.isTransactionActive) await change.rollbackTransaction().catch(() => undefined);
      await change.release();
    }
    await expectTotalsMatchRows();
  };

  itPostgresOnly('SQLite runs one write transaction at a time')(
    "keeps exact through an app's deletion while a status change in that app is under way (no deadlock)",
    () =>
      deleteDuringHalfDoneChange(async (appId, _ids, deleter) => {
        const res = await members.as(deleter, 'delete', `/api/v1/apps/${appId}`).then((r) => r);
        expect(`${res.status} ${res.body.error ?? ''}`).toBe('200 ');
        return 3;
      }),
  );

  itPostgresOnly('SQLite runs one write transaction at a time')(
    'keeps exact through a purge of several builds while a status change among them is under way (no deadlock)',
    () => deleteDuringHalfDoneChange(async (_appId, ids) => (await relay.app.get(BuildsRepository).deleteByIds(ids)).length),
  );

  /**
   * An app's count rows are shared by all its builds. The counts are written when a transaction
   * commits (migration BuildCountsAtCommit), so a write still under way in one of the app's builds
   * holds no count row: uploads and status changes of the app go on beside it. Written at each
   * row's change, the count row stayed locked to the end of the transaction, and every upload of
   * the app (on the soak: each upload's ten statements through a busy relay) queued behind it.
   */
  itPostgresOnly('SQLite runs one write transaction at a time')(
    'an upload and a status change in an app go through while another write in that app is still open, and the totals stay exact',
    async () => {
      const writer = await members.member('QA');
      const tokens = await members.pat(writer, 'builds:write');
      const first = (await attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body as { id: number };
      const other = (await attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), 'string-label.apk').expect(201)).body as { id: number };
      const open = db.createQueryRunner();
      await open.connect();
      try {
        // Another transaction moves one of the app's unset builds to Done and stays open.
        await open.startTransaction();
        await open.query('UPDATE builds SET status_label = $1 WHERE id = $2', ['Done', first.id]);
        // Answered while it stays open: one that waited for it would wait for ever (the event deadline tells).
        await within('an upload of the same app', attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), 'string-label.apk').expect(201));
        await within('a status change in the same app', members.as(writer, 'patch', `/api/v1/builds/${other.id}`).send({ status_label: 'Done' }).expect(200));
        await open.commitTransaction();
      } finally {
        if (open.isTransactionActive) await open.rollbackTransaction().catch(() => undefined);
        await open.release();
      }
      // Many at once in one app, uploads and changes mixed: every count still equals the rows.
      const more = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), 'string-label.apk', i % 3 ? { branch: i % 2 ? 'main' : 'release/1.0' } : {}),
        ),
      );
      expect(more.map((res) => res.status)).toEqual(more.map(() => 201));
      const statuses = ['Backlog', 'In Progress', 'Done', 'Rejected', null];
      const changes = await Promise.all(
        more.map((res, i) => members.as(writer, 'patch', `/api/v1/builds/${res.body.id}`).send({ status_label: statuses[i % statuses.length] })),
      );
      expect(changes.map((res) => res.status)).toEqual(changes.map(() => 200));
      await expectTotalsMatchRows();
    },
  );

  /**
   * Every count table's trigger runs at commit, row event by row event, and so does the bump of
   * build_list_changes' one row. A deletion of builds in two apps (P, then Q) and a status change
   * in Q commit together: had the deletion taken P's count row, then the shared row, then Q's, and
   * the change Q's and then the shared row, each would wait for the other. The shared row's trigger
   * sorts first (migration BuildListChanges), so both take it before any count row. Here a third
   * transaction holds the shared row while the deletion and then the change start committing, so
   * both queue on it, in that order.
   */
  itPostgresOnly('SQLite runs one write transaction at a time')(
    'a deletion across two apps and a status change in one of them commit together without a deadlock',
    async () => {
      const writer = await members.member('QA');
      const tokens = await members.pat(writer, 'builds:write');
      const upload = (fixture: string, status: string) => attachBuild(members.withPat(tokens, 'post', '/api/v1/builds'), fixture, { status }).expect(201);
      const inP = (await upload('binary-nested.app.zip', 'Done')).body as { id: number; app_id: number };
      const inQ = (await upload('string-label.apk', 'Rejected')).body as { id: number; app_id: number };
      const changed = (await upload('string-label.apk', 'Rejected')).body as { id: number; app_id: number };
      expect(inP.app_id).not.toBe(inQ.app_id);
      expect(changed.app_id).toBe(inQ.app_id);
      const [holder, deletion, change] = [db.createQueryRunner(), db.createQueryRunner(), db.createQueryRunner()];
      const runners = [holder, deletion, change];
      const waiting = async (count: number) => {
        for (let waited = 0; ; waited += 20) {
          const [{ n }] = await db.query(`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
          if (Number(n) >= count) return;
          if (waited > 10_000) throw new Error(`${count} transaction(s) were expected to wait for the shared row, ${n} did`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      try {
        for (const runner of runners) await runner.connect();
        for (const runner of runners) await runner.startTransaction();
        await holder.query('UPDATE build_list_changes SET n = n WHERE id = 1');
        await deletion.query('DELETE FROM builds WHERE id = $1', [inP.id]);
        await deletion.query('DELETE FROM builds WHERE id = $1', [inQ.id]);
        await change.query('UPDATE builds SET status_label = $1 WHERE id = $2', ['Done', changed.id]);
        const deleted = deletion.commitTransaction();
        deleted.catch(() => undefined); // awaited below
        await waiting(1);
        const changedAtCommit = change.commitTransaction();
        changedAtCommit.catch(() => undefined);
        await waiting(2);
        await holder.commitTransaction();
        const outcomes = await Promise.allSettled([deleted, changedAtCommit]);
        expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'committed' : String((o.reason as Error).message)))).toEqual(['committed', 'committed']);
      } finally {
        for (const runner of runners) {
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
          await runner.release();
        }
      }
      await expectTotalsMatchRows();
    },
  );

  it('agrees with counting for a search term, which is counted from the rows', async () => {
    const all = (await members.withPat(pat, 'get', '/api/v1/builds?limit=100').expect(200)).body.items as { version_name: string | null }[];
    const term = all.find((b) => b.version_name)!.version_name!.slice(0, 2);
    const expected = all.filter((b) => b.version_name?.toLowerCase().includes(term.toLowerCase())).length;
    expect((await members.withPat(pat, 'get', `/api/v1/builds?q=${encodeURIComponent(term)}`).expect(200)).body.total).toBe(expected);
  });
});
