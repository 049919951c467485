/**
 * bench/list-postgres: GET /api/v1/builds at 100,000 builds (BENCH_BUILDS) on PostgreSQL, every list
 * variant the relay answers, against the floor in the same run (bench/baselines/list-server-pg.ts:
 * node:http + a `pg` pool running the relay's own statements for each variant on a copy of the same
 * database, same PAT check, same JSON; issue 42 item 3).
 *
 * The relay runs on a fresh database svc_bench_<random> on BENCH_DATABASE_URL's server (default the
 * test server, postgres://postgres@127.0.0.1:5432), dropped at the end with its copy. Seeding as in
 * bench/list (a few real builds through POST /builds, the rest by SQL, bench/support/million-seed.ts),
 * the relay restarted on them. Before any load, every variant is asked of both: they must list the
 * same builds in the same order, or the suite fails.
 *
 * Options and verdicts as bench/list (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_ONLY,
 * BENCH_PROFILE, BENCH_KEEP). Besides each server's own CPU time per request, the CPU time of the
 * PostgreSQL backends serving it is printed ("db ms/req"): every statement costs the database's
 * processes too, on the same cores.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSameIds, fetchAnswers, LIST_BUILDS, listVariants, loadOptions, measureVariants, uploadFixtures } from './support/list-bench';
import { listCorpus, postgresSeedDatabase, seedMillion } from './support/million-seed';
import { backendPids, createBenchDatabase } from './support/postgres-seed';
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
    // The seeded rows have no files: the builds folder's sweep would delete them (million-seed.ts).
    const env = { SVC_DATABASE_URL: database.url, SVC_BUILD_FILE_SWEEP: 'false' };
    let relay = await startRelay(dataDir, env);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();

    process.stdout.write(`Seeding ${LIST_BUILDS} builds… `);
    const db = await postgresSeedDatabase(database.url);
    await seedMillion(db, LIST_BUILDS, () => undefined);
    const corpus = await listCorpus(db, LIST_BUILDS);
    await db.close();
    const copy = await createBenchDatabase(database);
    databases.push(copy);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, env, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${LIST_BUILDS} builds`);
    const floorPort = await freePort();
    const floor = await startBaseline('list-server-pg.ts', [copy.url], floorPort);
    children.push(floor);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = listVariants(corpus);
    checkSameIds(await fetchAnswers(relay.port, floorPort, list, headers), 'postgres');
    const missed = await measureVariants(
      'postgres',
      `GET /builds at ${LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid!, helperPids: () => backendPids(database.name) },
      { port: floorPort, pid: floor.pid!, helperPids: () => backendPids(copy.name) },
      headers,
      loadOptions({ rounds: 3, seconds: 4, connections: 32 }),
    );
    console.log(missed ? `\n${missed} target(s) missed` : '\nevery target met');
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
