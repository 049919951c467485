/**
 * bench/list: GET /api/v1/builds at 100,000 builds (BENCH_BUILDS) on SQLite, every list variant the
 * relay answers (bench/support/list-bench.ts listVariants), against the floor in the same run
 * (bench/baselines/list-server.ts: node:http + better-sqlite3 running the relay's own statements for
 * each variant on a copy of the same rows, same PAT check, same JSON; issue 42 item 3).
 *
 * Seeding: a few real builds go through POST /builds (so their apps are created by the relay), then
 * the rest are written by SQL straight into the relay's tables (bench/support/million-seed.ts, the
 * rows of bench/million: provenance, flags, gates, icons, a deleted uploader), the relay running with
 * the builds folder's sweep off (the seeded rows have no files). Before any load, every variant is
 * asked of both: they must list the same builds in the same order, or the suite fails.
 * bench/list-postgres does the same on PostgreSQL.
 *
 * Each variant: BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (4) after 1 s of
 * warm-up, relay then floor, BENCH_ROUNDS (3) times; the medians are printed, then per variant the
 * verdict lines: answers/s >= 0.8 of the floor's, p99 <= 1.3 times the floor's.
 * BENCH_ONLY=plain,status (variant names) narrows the run; BENCH_PROFILE=<dir> writes a CPU profile
 * of the relay (node --cpu-prof); BENCH_KEEP=1 keeps the seeded data folder.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSameIds, fetchAnswers, LIST_BUILDS, listVariants, loadOptions, measureVariants, uploadFixtures } from './support/list-bench';
import { listCorpus, seedMillion, sqliteSeedDatabase } from './support/million-seed';
import { buildRelay, freePort, issuePat, rssKb, startRelay, stopChild, startBaseline } from './support/relay';

const PROFILE_DIR = process.env.BENCH_PROFILE;
/** The seeded rows have no files: the builds folder's sweep would delete them (million-seed.ts). */
const ENV = { SVC_BUILD_FILE_SWEEP: 'false' };

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir, ENV);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();

    process.stdout.write(`Seeding ${LIST_BUILDS} builds… `);
    const dbPath = join(dataDir, 'svc.sqlite');
    const db = sqliteSeedDatabase(dbPath);
    await seedMillion(db, LIST_BUILDS, () => undefined);
    const corpus = await listCorpus(db, LIST_BUILDS);
    db.close();
    const floorDb = join(work, 'floor.sqlite');
    copyFileSync(dbPath, floorDb);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, ENV, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${LIST_BUILDS} builds`);
    const floorPort = await freePort();
    const floor = await startBaseline('list-server.ts', [floorDb], floorPort);
    children.push(floor);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = listVariants(corpus);
    checkSameIds(await fetchAnswers(relay.port, floorPort, list, headers), 'sqlite');
    const missed = await measureVariants(
      'sqlite',
      `GET /builds at ${LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid! },
      { port: floorPort, pid: floor.pid! },
      headers,
      loadOptions({ rounds: 3, seconds: 4, connections: 32 }),
    );
    console.log(missed ? `\n${missed} target(s) missed` : '\nevery target met');
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
