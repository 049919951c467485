import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { BuildRetentionService } from '../../src/builds/build-retention.service';
import { BuildsRepository } from '../../src/builds/builds.repository';
import { BuildsDeletedEvent } from '../../src/builds/events/builds-deleted.event';
import { HOUR_MS } from '../../src/common/time';
import { ScheduledPurgesService } from '../../src/maintenance/scheduled-purges.service';
import { attachBuild } from '../support/build-fixtures';
import { describeUnless } from '../support/describe-unless';
import { testDialect, testStorage } from '../support/test-relay';
import { useTestRelay } from '../support/use-relay';

/**
 * Builds written by SQL, each with an empty file in the builds folder. Fewer on PostgreSQL: its
 * trigram index is kept up row by row (100,000 rows took over 3 minutes at load 13), and its
 * driver never held the loop for a whole query the way SQLite's synchronous one does.
 */
const BUILDS = testDialect === 'postgres' ? 20_000 : 100_000;
/**
 * The most of the sweep's slices (name lookups and id-range counts: 299 at 100,000 builds, 61 at
 * 20,000) that one GET /health may wait through while the sweep runs. The sweep yields to the event
 * loop after each slice, so an answer waits through a few of them (a request takes a few turns of the
 * loop: 1 to 3 mostly, 25 at most in three runs; a range with a missing file awaits the disk).
 * A sweep that held the loop, like the one that read every row and the whole listing at once, makes
 * one answer wait for all of them; one that stops yielding between id ranges, for the rows pass (98
 * ranges at 100,000 builds). Counted, not timed: a busy machine makes each slice slower, not more of
 * them pass during one answer. How long a slice holds the loop is bench/sweep.ts's to measure.
 */
const MAX_SLICES_PER_ANSWER = testDialect === 'postgres' ? 20 : 50;

/**
 * Issue 27: the builds folder's orphan sweep at scale (bench/results/2026-11-27-665943d-million.md). The
 * sweep walks the folder and the table in slices, yielding between them, so the relay answers
 * while it runs, its memory does not hold every row, and at start-up it does not hold the start;
 * what it removes is what it removed before (builds-api and stored-file-owners check the rules).
 */
describeUnless(
  testStorage === 's3' ? `${BUILDS} build files are written straight into the data folder (SVC_TEST_STORAGE=s3 stores them in S3)` : null,
  `the builds folder sweep at ${BUILDS.toLocaleString('en')} builds`,
  () => {
    jest.setTimeout(180_000);
    const ctx = useTestRelay();
    const deleted: BuildsDeletedEvent[] = [];
    const strays = ['a', 'b', 'c'].map((c) => `${c.repeat(32)}.apk`);
    const gone = [7, BUILDS / 2, BUILDS].map((i) => `sweep-${i}.apk`);

    beforeAll(async () => {
      const pat = await ctx.members.pat(await ctx.members.member('QA'), 'builds:write');
      await attachBuild(ctx.members.withPat(pat, 'post', '/api/v1/builds'), 'literal-label.apk').expect(201);
      // The minute's round would sweep the folder while it is being filled: this test runs the sweeps itself.
      ctx.relay.app.get(SchedulerRegistry).getCronJob('purge').stop();
      // Files first, as an upload stores its file before inserting its row.
      const folder = join(ctx.relay.dataDir, 'builds');
      mkdirSync(folder, { recursive: true });
      for (let i = 1; i <= BUILDS; i++) if (!gone.includes(`sweep-${i}.apk`)) writeFileSync(join(folder, `sweep-${i}.apk`), '');
      const series =
        testDialect === 'postgres'
          ? `SELECT g AS i FROM generate_series(1, ${BUILDS}) AS g`
          : `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${BUILDS}) SELECT i FROM s`;
      await ctx.relay.app.get(DataSource).query(
        `INSERT INTO builds (app_id, name, version_name, build_number, platform, bundle_id, file_name, original_name, file_size, uploaded_at)
         SELECT b.app_id, b.name, b.version_name, CAST(s.i AS TEXT), b.platform, b.bundle_id, 'sweep-' || CAST(s.i AS TEXT) || '.apk', 'a.apk', 0, b.uploaded_at
         FROM (${series}) AS s CROSS JOIN (SELECT * FROM builds ORDER BY id LIMIT 1) AS b`,
      );
      // As autovacuum would have by then: without statistics PostgreSQL plans the slice's lookup for
      // a one-row table (a scan comparing each row with 500 names: 0.6 s a slice at 20,000 builds).
      if (testDialect === 'postgres') await ctx.relay.app.get(DataSource).query('ANALYZE builds');
      // Left by a crash two hours ago: no row references them.
      const past = new Date(Date.now() - 2 * HOUR_MS);
      for (const name of strays) {
        writeFileSync(join(folder, name), 'x');
        utimesSync(join(folder, name), past, past);
      }
      ctx.relay.app.get(EventEmitter2).on(BuildsDeletedEvent.eventName, (e: BuildsDeletedEvent) => deleted.push(e));
    });

    const total = async () => Number((await ctx.relay.app.get(DataSource).query('SELECT COUNT(*) AS n FROM builds'))[0].n);

    it('answers GET /health between its slices while the sweep runs, and removes what it removed before', async () => {
      const ids = await Promise.all(
        gone.map(async (name) => Number((await ctx.relay.app.get(DataSource).query(`SELECT id FROM builds WHERE file_name = '${name}'`))[0].id)),
      );
      // The first request warms the client and the route up: it is not the sweep's doing.
      expect((await fetch(`${ctx.relay.url}/api/v1/health`)).status).toBe(200);
      // Each slice the sweep finishes is counted (watched, not changed: the real query runs).
      const repository = ctx.relay.app.get(BuildsRepository);
      let slices = 0;
      for (const method of ['withFileNames', 'countInIdRange'] as const) {
        const original = (repository[method] as (...args: unknown[]) => Promise<unknown>).bind(repository);
        jest.spyOn(repository, method).mockImplementation(async (...args: unknown[]) => {
          const result = await original(...args);
          slices++;
          return result as never;
        });
      }
      let running = true;
      const waited: number[] = [];
      let outcome = { files: -1, rows: -1 };
      try {
        const sweep = ctx.relay.app.get(BuildRetentionService).sweepOrphans(HOUR_MS).finally(() => (running = false));
        while (running) {
          const before = slices;
          const res = await fetch(`${ctx.relay.url}/api/v1/health`);
          waited.push(slices - before);
          expect(res.status).toBe(200);
        }
        outcome = await sweep;
      } finally {
        jest.restoreAllMocks();
      }
      console.log(`GET /health during a sweep of ${BUILDS} builds (${slices} slices): ${waited.length} answers, waiting through at most ${Math.max(...waited)} slices; removed ${JSON.stringify(outcome)}`);
      // The relay answered between slices all along: many answers, none waiting for more than a few slices.
      expect(waited.length).toBeGreaterThanOrEqual(slices / MAX_SLICES_PER_ANSWER);
      expect(Math.max(...waited)).toBeLessThanOrEqual(MAX_SLICES_PER_ANSWER);
      expect(outcome).toEqual({ files: strays.length, rows: gone.length });

      for (const name of strays) expect([name, await ctx.relay.storedFileExists(`builds/${name}`)]).toEqual([name, false]);
      expect(deleted.flatMap((e) => e.buildIds).sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
      expect(deleted.every((e) => e.reason === 'file_missing')).toBe(true);
      expect(await total()).toBe(BUILDS + 1 - gone.length);
    });

    it('asks the repository in slices, never for every row', async () => {
      const repository = ctx.relay.app.get(BuildsRepository);
      const asked: { method: string; names: number; rows: number }[] = [];
      for (const method of ['withFileNames', 'filesInIdRange', 'countInIdRange', 'maxId'] as const) {
        const original = (repository[method] as (...args: unknown[]) => Promise<unknown>).bind(repository);
        jest.spyOn(repository, method).mockImplementation(async (...args: unknown[]) => {
          const result = await original(...args);
          asked.push({ method, names: Array.isArray(args[0]) ? args[0].length : 0, rows: Array.isArray(result) ? result.length : 1 });
          return result as never;
        });
      }
      try {
        expect(await ctx.relay.app.get(BuildRetentionService).sweepOrphans(HOUR_MS)).toEqual({ files: 0, rows: 0 });
      } finally {
        jest.restoreAllMocks();
      }
      const lookups = asked.filter((a) => a.method === 'withFileNames');
      expect(lookups.length).toBeGreaterThanOrEqual(BUILDS / 500);
      expect(Math.max(...asked.map((a) => Math.max(a.names, a.rows)))).toBeLessThanOrEqual(1024);
      // Every range matched its marks: no row was read for a second look.
      expect(asked.filter((a) => a.method === 'filesInIdRange')).toEqual([]);
    });

    it('at start-up the sweep runs in the background: the start-up sweep returns while it still walks', async () => {
      const retention = ctx.relay.app.get(BuildRetentionService);
      const original = retention.sweepOrphans.bind(retention);
      const sweeps: Promise<unknown>[] = [];
      jest.spyOn(retention, 'sweepOrphans').mockImplementation((graceMs: number) => {
        const sweep = original(graceMs);
        sweeps.push(sweep);
        return sweep as never;
      });
      try {
        let finished = false;
        await (ctx.relay.app.get(ScheduledPurgesService).sweepAfterCrash as (o: unknown) => Promise<void>)({ waitForBackground: false });
        expect(sweeps).toHaveLength(1);
        void sweeps[0].then(() => (finished = true));
        expect((await fetch(`${ctx.relay.url}/api/v1/health`)).status).toBe(200);
        expect(finished).toBe(false);
        // A round of the minute while it runs does not start a second one.
        await ctx.relay.app.get(ScheduledPurgesService).runAll();
        expect(sweeps).toHaveLength(1);
        expect(await sweeps[0]).toEqual({ files: 0, rows: 0 });
      } finally {
        jest.restoreAllMocks();
      }
      expect(await total()).toBe(BUILDS + 1 - gone.length);
    });
  },
);
