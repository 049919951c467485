/**
 * bench/list: the outside list benchmark on SQLite (issue 42 item 3's last target). GET
 * /api/v1/builds at 30,000 builds (BENCH_BUILDS; 100,000 until the floor replaced this comparison),
 * spec §4's 14 variants (bench/support/raw-list-bench.ts), against the RAW baseline in the same run
 * (bench/baselines/raw-list-server.ts: node:http + better-sqlite3 on a copy of the same rows, same
 * PAT check, same JSON, but its own simpler SQL and its own indexes). Target: answers/s >= 0.5 of the
 * baseline's for every variant, and p99 < 25 ms for the indexed ones (all but q). The relay against
 * the floor (the relay's own statements, every variant, issue 42's 0.8 / 1.3 targets) is bench/million.
 *
 * Seeding: a few real builds go through POST /builds (so their apps are created by the relay), then
 * the rest are written straight into the relay's tables in the same shape (bench/support/sqlite-seed.ts,
 * plus an empty file per build, since the start-up sweep removes rows whose file is missing). Before
 * any load, every variant's answer from the relay is compared with the baseline's and any difference
 * printed. bench/list-postgres does the same on PostgreSQL.
 *
 * Each variant: BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (4) after 1 s of
 * warm-up, relay then baseline, BENCH_ROUNDS (3) times; the medians, the ratio and the cpu ratio
 * (baseline's CPU per request ÷ relay's, the steadier comparison on a shared machine) are printed.
 * BENCH_ONLY=plain,status (variant names) narrows the run; BENCH_PROFILE=<dir> writes a CPU profile
 * of the relay (node --cpu-prof); BENCH_KEEP=1 keeps the seeded data folder.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOptions, uploadFixtures } from './support/list-bench';
import { compareAnswers, measureAgainstRaw, RAW_LIST_BUILDS, rawListVariants } from './support/raw-list-bench';
import { seedSqlite } from './support/sqlite-seed';
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

    process.stdout.write(`Seeding ${RAW_LIST_BUILDS} builds… `);
    const dbPath = join(dataDir, 'svc.sqlite');
    const busiestApp = seedSqlite(dbPath, join(dataDir, 'builds'), RAW_LIST_BUILDS);
    const baselineDb = join(work, 'baseline.sqlite');
    copyFileSync(dbPath, baselineDb);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, {}, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${RAW_LIST_BUILDS} builds`);
    const baselinePort = await freePort();
    const baseline = await startBaseline('raw-list-server.ts', [baselineDb], baselinePort);
    children.push(baseline);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = rawListVariants(busiestApp);
    const mismatches = await compareAnswers(relay.port, baselinePort, list, headers);
    const failures = await measureAgainstRaw(
      `GET /builds, ${RAW_LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid! },
      { port: baselinePort, pid: baseline.pid! },
      headers,
      loadOptions({ rounds: 3, seconds: 4, connections: 32 }),
    );
    console.log(failures || mismatches ? `\n${failures} variant(s) below target, ${mismatches} answer(s) unlike the baseline's` : '\nevery variant at or past its target');
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
