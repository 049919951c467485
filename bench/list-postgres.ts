/**
 * bench/list-postgres: the outside list benchmark on PostgreSQL (issue 42 item 3's last target). GET
 * /api/v1/builds at 30,000 builds (BENCH_BUILDS), spec §4's 14 variants, against the RAW baseline in
 * the same run (bench/baselines/raw-list-server-pg.ts: node:http + a `pg` pool on a copy of the same
 * database, same PAT check, same JSON, but its own simpler SQL and its own indexes). Target as
 * bench/list: answers/s >= 0.5 of the baseline's for every variant, p99 < 25 ms for the indexed ones.
 * The relay against the floor (its own statements, every variant) is bench/million.
 *
 * The relay runs on a fresh database svc_bench_<random> on BENCH_DATABASE_URL's server (default the
 * test server, postgres://postgres@127.0.0.1:5432), dropped at the end with its copy. Seeding as in
 * bench/list: a few real builds through POST /builds, then the rest straight into the relay's tables
 * (bench/support/postgres-seed.ts), the relay restarted on them. Before any load, every variant's
 * answer from the relay is compared with the baseline's and any difference printed.
 *
 * Options as bench/list (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_ONLY, BENCH_PROFILE,
 * BENCH_KEEP). Besides each server's own CPU time per request, the CPU time of the PostgreSQL
 * backends serving it is printed ("db ms/req") and counted in the cpu ratio: every statement the
 * relay sends costs the database's processes too, on the same cores.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOptions, uploadFixtures } from './support/list-bench';
import { backendPids, createBenchDatabase, seedPostgres } from './support/postgres-seed';
import { compareAnswers, measureAgainstRaw, RAW_LIST_BUILDS, rawListVariants } from './support/raw-list-bench';
import { buildRelay, freePort, issuePat, rssKb, startRelay, stopChild, startBaseline } from './support/relay';

const PROFILE_DIR = process.env.BENCH_PROFILE;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-pg-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  const databases: { drop(): Promise<void> }[] = [];
  try {
    buildRelay();
    const database = await createBenchDatabase();
    databases.push(database);
    const env = { SVC_DATABASE_URL: database.url };
    let relay = await startRelay(dataDir, env);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();

    process.stdout.write(`Seeding ${RAW_LIST_BUILDS} builds… `);
    const busiestApp = await seedPostgres(database.url, join(dataDir, 'builds'), RAW_LIST_BUILDS);
    const copy = await createBenchDatabase(database);
    databases.push(copy);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, env, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${RAW_LIST_BUILDS} builds`);
    const baselinePort = await freePort();
    const baseline = await startBaseline('raw-list-server-pg.ts', [copy.url], baselinePort);
    children.push(baseline);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = rawListVariants(busiestApp);
    const mismatches = await compareAnswers(relay.port, baselinePort, list, headers);
    const failures = await measureAgainstRaw(
      `GET /builds on PostgreSQL, ${RAW_LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid!, helperPids: () => backendPids(database.name) },
      { port: baselinePort, pid: baseline.pid!, helperPids: () => backendPids(copy.name) },
      headers,
      loadOptions({ rounds: 3, seconds: 4, connections: 32 }),
    );
    console.log(failures || mismatches ? `\n${failures} variant(s) below target, ${mismatches} answer(s) unlike the baseline's` : '\nevery variant at or past its target');
    console.log(`relay RSS after the run: ${((rssKb(relay.child.pid!) ?? 0) / 1024).toFixed(0)} MB`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP) console.log(`kept ${work} and the databases`);
    else {
      for (const database of databases.reverse()) await database.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
