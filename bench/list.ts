/**
 * bench/list: GET /api/v1/builds at 100,000 builds (BENCH_BUILDS) on SQLite, every list variant of
 * spec §4, against a baseline measured in the same run (bench/baselines/list-server.ts: node:http +
 * better-sqlite3 on a copy of the same rows, same PAT check, same JSON shape).
 *
 * Seeding: a few real builds go through POST /builds (so their apps are created by the relay), then
 * the rest are written straight into the relay's tables in the same shape (plus an empty file per
 * build, since the start-up sweep removes rows whose file is missing). Before any load, every
 * variant's answer from the relay is compared with the baseline's: they must be identical.
 * bench/list-postgres does the same on PostgreSQL; the variants, the seeded builds, the comparison
 * and the rounds are bench/support/list-bench.ts.
 *
 * Each variant: BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (4) after 1 s of
 * warm-up, relay then baseline, BENCH_ROUNDS (3) times; the medians and the ratio are printed.
 * BENCH_ONLY=plain,status (variant names) narrows the run; BENCH_PROFILE=<dir> writes a CPU profile
 * of the relay (node --cpu-prof); BENCH_KEEP=1 keeps the seeded data folder.
 * Targets: ratio >= 0.5 for every variant; p99 < 25 ms for the indexed ones (all but q).
 * Also printed: each server's CPU time per request and their ratio ("cpu ratio" = baseline's CPU
 * per request / relay's): on a machine shared with other work this is the steadier comparison.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareAnswers, LIST_BUILDS, listVariants, measureVariants, uploadFixtures } from './support/list-bench';
import { seedSqlite as seed } from './support/sqlite-seed';
import { buildRelay, freePort, issuePat, rssKb, startRelay, stopChild, startBaseline } from './support/relay';

const PROFILE_DIR = process.env.BENCH_PROFILE;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();

    process.stdout.write(`Seeding ${LIST_BUILDS} builds… `);
    const dbPath = join(dataDir, 'svc.sqlite');
    const busiestApp = seed(dbPath, join(dataDir, 'builds'), LIST_BUILDS);
    const baselineDb = join(work, 'baseline.sqlite');
    copyFileSync(dbPath, baselineDb);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, {}, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${LIST_BUILDS} builds`);
    const baselinePort = await freePort();
    const baseline = await startBaseline('list-server.ts', [baselineDb], baselinePort);
    children.push(baseline);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = listVariants(busiestApp);
    const mismatches = await compareAnswers(relay.port, baselinePort, list, headers);
    const failures = await measureVariants(
      `GET /builds, ${LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid! },
      { port: baselinePort, pid: baseline.pid! },
      headers,
    );
    console.log(failures || mismatches ? `\n${failures} variant(s) below target` : '\nevery variant at or past its target');
    console.log(`relay RSS after the run: ${((rssKb(relay.child.pid!) ?? 0) / 1024).toFixed(0)} MB`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
