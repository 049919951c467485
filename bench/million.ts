/**
 * bench/million (`npm run bench:million`): GET /api/v1/builds at a million builds (BENCH_BUILDS; a
 * smaller seed such as BENCH_BUILDS=20000 checks the suite in a minute), on SQLite and then on
 * PostgreSQL (a fresh database on BENCH_DATABASE_URL's server, default the test server
 * postgres://postgres@127.0.0.1:5432, dropped at the end), against the floor in the same run
 * (issue 42 item 3).
 *
 * The relay (dist/, as `npm start` runs it) creates its tables and the bench's admin and PAT; then,
 * with the relay stopped, the builds are written by SQL alone (bench/support/million-seed.ts; the
 * seed's time is printed), and the relay is started again on them, with the builds folder's sweep
 * off (SVC_BUILD_FILE_SWEEP=false: the rows have no files). Beside it the floor
 * (bench/baselines/list-server.ts or list-server-pg.ts: node:http and the driver, no framework,
 * the relay's own statements for every variant, list-query.ts) runs on the same database. Every
 * variant (bench/support/list-bench.ts listVariants: the spec's filters, sorts and pages, deep
 * pages, `q`, `search`, and the filters beyond the spec) is asked of both first: they must list
 * the same builds in the same order, or the suite fails. Then each variant is loaded from
 * BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (3) a side, in turns relay, floor,
 * floor, relay (a slow variant's turns longer: support/list-bench.ts loadRounds), BENCH_ROUNDS (1) times; the table gives each side's req/s, p50, p99 and CPU time per
 * answer (PostgreSQL's own work not included), and the verdict lines the ratios against the
 * targets: answers/s >= 0.8 of the floor's, p99 <= 1.3 times the floor's. The load average is
 * printed before and after each database's rounds (the machine is shared).
 *
 * BENCH_DATABASES=sqlite or postgres runs one; BENCH_ONLY=plain,… narrows the variants;
 * BENCH_ANSWERS=<file> writes every variant's answer from each side (status and body) there as JSON,
 * so two builds of the relay can be compared on the same rows (BENCH_KEEP=1 keeps the data folder
 * and the database and prints where, with the PAT; BENCH_REUSE=<folder>[,<database url>] with
 * BENCH_PAT measures a kept one without seeding). BENCH_CHECKOUT=<dir> runs that checkout's relay
 * (its dist/main.js, built beforehand) instead of this one's: the same rows under an older build,
 * for A/B runs alternating the two (with BENCH_REUSE, and BENCH_ANSWERS to compare).
 * Data go under the system's temp folder: ~1.5 GB for SQLite at a million builds.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSameIds, fetchAnswers, listVariants, loadOptions, measureVariants } from './support/list-bench';
import { listCorpus, postgresSeedDatabase, prepare, seedMillion, sqliteSeedDatabase } from './support/million-seed';
import { createBenchDatabase } from './support/postgres-seed';
import { buildRelay, freePort, ROOT, startBaseline, startRelay, stopChild } from './support/relay';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 1_000_000);
const LOAD = loadOptions({ rounds: 1, seconds: 3, connections: 32 });
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const ANSWERS = process.env.BENCH_ANSWERS;
const REUSE = process.env.BENCH_REUSE?.split(',');
const CHECKOUT = process.env.BENCH_CHECKOUT ?? ROOT;

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const kept = { pat: '' };

async function runDatabase(dialect: 'sqlite' | 'postgres'): Promise<number> {
  const work = REUSE ? REUSE[0] : mkdtempSync(join(tmpdir(), `svc-bench-million-${dialect}-`));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  try {
    // The seeded rows have no files: the builds folder's sweep would delete them (million-seed.ts).
    let env: Record<string, string> = { SVC_BUILD_FILE_SWEEP: 'false' };
    if (dialect === 'postgres') {
      database = REUSE?.[1] ? { url: REUSE[1], drop: async () => undefined } : await createBenchDatabase();
      env = { ...env, SVC_DATABASE_URL: database.url };
    }
    const sqliteFile = join(dataDir, 'svc.sqlite');
    const open = async () => (dialect === 'sqlite' ? sqliteSeedDatabase(sqliteFile) : await postgresSeedDatabase(database!.url));
    let pat: string;
    if (REUSE) {
      if (!process.env.BENCH_PAT) throw new Error('BENCH_REUSE needs BENCH_PAT (the kept run prints it)');
      pat = process.env.BENCH_PAT;
    } else {
      pat = await prepare(dataDir, env);
      const db = await open();
      console.log(`${dialect}: seeding ${BUILDS.toLocaleString('en')} builds by SQL (load average ${load()})`);
      const result = await seedMillion(db, BUILDS, (line) => console.log(line));
      const closing = performance.now();
      await db.close();
      const finishing = (performance.now() - closing) / 1000;
      console.log(`${dialect}: seeded in ${result.seconds.toFixed(0)} s by SQL, + ${finishing.toFixed(0)} s ${dialect === 'postgres' ? 'VACUUM ANALYZE' : 'checkpoint'}`);
    }
    kept.pat = pat;
    const db = await open();
    const corpus = await listCorpus(db, BUILDS);
    await db.close();
    const started = performance.now();
    const relay = await startRelay(dataDir, env, [], CHECKOUT);
    children.push(relay.child);
    console.log(`${dialect}: relay ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // The floor on the same rows (no copy to make at a million builds); it idles while the relay is loaded, and the relay while it is.
    const floorPort = await freePort();
    const floor = await startBaseline(dialect === 'sqlite' ? 'list-server.ts' : 'list-server-pg.ts', [dialect === 'sqlite' ? sqliteFile : database!.url], floorPort);
    children.push(floor);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = listVariants(corpus);
    const answers = await fetchAnswers(relay.port, floorPort, list, headers);
    if (ANSWERS) writeFileSync(`${ANSWERS}.${dialect}.json`, JSON.stringify(answers, null, 1));
    checkSameIds(answers, dialect);
    console.log(`${dialect}: load average before the rounds ${load()}`);
    const missed = await measureVariants(
      dialect,
      `GET /builds at ${BUILDS.toLocaleString('en')} builds`,
      list,
      { port: relay.port, pid: relay.child.pid! },
      { port: floorPort, pid: floor.pid! },
      headers,
      LOAD,
    );
    console.log(`${dialect}: load average after the rounds ${load()}`);
    return missed;
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP || REUSE) console.log(`kept ${work}${database ? ` and ${database.url}` : ''} (BENCH_PAT=${kept.pat})`);
    else {
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }
}

async function main(): Promise<void> {
  if (CHECKOUT === ROOT) buildRelay();
  else if (!existsSync(join(CHECKOUT, 'dist', 'main.js'))) throw new Error(`BENCH_CHECKOUT ${CHECKOUT} has no dist/main.js: build it first`);
  console.log(`relay: ${CHECKOUT === ROOT ? 'this checkout' : CHECKOUT}`);
  for (const dialect of DATABASES) await runDatabase(dialect as 'sqlite' | 'postgres');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
