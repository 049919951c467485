/**
 * bench/million (`npm run bench:million`): GET /api/v1/builds at a million builds (BENCH_BUILDS), on
 * SQLite and then on PostgreSQL (a fresh database on BENCH_DATABASE_URL's server, default the test
 * server postgres://postgres@127.0.0.1:5432, dropped at the end), issue 27 item 3.
 *
 * The relay (dist/, as `npm start` runs it) creates its tables and the bench's admin and PAT; then,
 * with the relay stopped, the builds are written by SQL alone (bench/support/million-seed.ts; the
 * seed's time is printed), and the relay is started again on them, with the builds folder's sweep
 * off (SVC_BUILD_FILE_SWEEP=false: the rows have no files). Every variant (the spec's
 * filters, sorts and pages, deep pages, `q`, `search`, and the filters beyond the spec) is asked
 * once, then loaded from BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (3) after
 * 1 s of warm-up; p50 and p99 are printed with the relay's CPU time per answer (PostgreSQL's own
 * work not included) with "met" / "NOT met" against the target: p99 < 25 ms,
 * or < 100 ms for the full-text-like ones (`q`, `search`). The load average is printed before and
 * after each database's rounds (the machine is shared).
 *
 * BENCH_DATABASES=sqlite or postgres runs one; BENCH_ONLY=plain,… narrows the variants;
 * BENCH_ANSWERS=<file> writes every variant's answer (status and body) there as JSON, so two builds of
 * the relay can be compared on the same rows (BENCH_KEEP=1 keeps the data folder and the database
 * and prints where, with the PAT; BENCH_REUSE=<folder>[,<database url>] with BENCH_PAT measures a kept one without seeding).
 * BENCH_CHECKOUT=<dir> runs that checkout's relay (its dist/main.js, built beforehand) on the same rows.
 * Data go under the system's temp folder: ~1.5 GB for SQLite at a million builds.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSeedDatabase, prepare, seedMillion, SeedDatabase, SeedResult, sqliteSeedDatabase } from './support/million-seed';
import { createBenchDatabase } from './support/postgres-seed';
import { buildRelay, ROOT, runLoad, startRelay, stopChild } from './support/relay';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const ONLY = process.env.BENCH_ONLY?.split(',');
const ANSWERS = process.env.BENCH_ANSWERS;
const REUSE = process.env.BENCH_REUSE?.split(',');
const CHECKOUT = process.env.BENCH_CHECKOUT ?? ROOT;

interface Variant {
  name: string;
  query: string;
  /** p99 target, ms. */
  target: number;
}

function variants(seed: Pick<SeedResult, 'busiestApp' | 'smallApp'>, commit: string): Variant[] {
  const lastPage = Math.floor((BUILDS - 1) / 20);
  const fast = (name: string, query: string): Variant => ({ name, query, target: 25 });
  const text = (name: string, query: string): Variant => ({ name, query, target: 100 });
  return [
    fast('plain', 'limit=20'),
    fast('status', 'status=Done'),
    fast('status untriaged', 'status=untriaged'),
    fast('platform', 'platform=ios'),
    fast('app_id (busiest)', `app_id=${seed.busiestApp}`),
    fast('app_id (small)', `app_id=${seed.smallApp}`),
    fast('app_id platform status', `app_id=${seed.busiestApp}&platform=android&status=Rejected`),
    fast('uploaded_at asc', 'sort=uploaded_at&dir=asc'),
    fast('version_name desc', 'sort=version_name&dir=desc'),
    fast('version_name asc', 'sort=version_name&dir=asc'),
    fast('status_label desc', 'sort=status_label&dir=desc'),
    fast('status_label asc', 'sort=status_label&dir=asc'),
    fast('limit 100', 'limit=100'),
    fast('page 1000', 'page=1000'),
    fast('page 10000', 'page=10000'),
    fast(`last page (${lastPage})`, `page=${lastPage}`),
    fast('status page 500', 'status=Done&page=500'),
    fast('version_name asc page 1000', 'sort=version_name&dir=asc&page=1000'),
    fast('status_label desc page 10000', 'sort=status_label&dir=desc&page=10000'),
    fast('app_id page 1000', `app_id=${seed.busiestApp}&page=1000`),
    fast('flagged', 'flagged=true'),
    fast('branch', 'branch=main'),
    fast('commit', `commit=${commit}`),
    text('q', 'q=1.2'),
    text('search app name', 'search=kestrel'),
    text('search rare label', 'search=feature%2Fbranch-123'),
    text('search broad', 'search=branch'),
    text('search + status', 'search=wallet&status=Done'),
    text('search page 200', 'search=branch&page=200'),
  ].filter((variant) => !ONLY || ONLY.includes(variant.name));
}

interface Row {
  variant: Variant;
  total: number;
  rps: number;
  p50: number;
  p99: number;
  /** The relay's CPU time per answer, ms (steadier than latency on a shared machine). */
  cpu: number;
  non200: number;
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

async function measure(label: string, base: string, port: number, pid: number, pat: string, list: Variant[]): Promise<Row[]> {
  const headers = { Authorization: `Bearer ${pat}` };
  const answers: Record<string, { status: number; body: string }> = {};
  const totals = new Map<string, number>();
  // Once each first: the answer (kept for BENCH_ANSWERS), its total, and the pages in the cache.
  for (const variant of list) {
    const res = await fetch(`${base}/builds?${variant.query}`, { headers });
    const body = await res.text();
    answers[variant.name] = { status: res.status, body };
    totals.set(variant.name, res.status === 200 ? (JSON.parse(body) as { total: number }).total : NaN);
  }
  if (ANSWERS) writeFileSync(`${ANSWERS}.${label}.json`, JSON.stringify(answers, null, 1));
  console.log(`${label}: load average before the rounds ${load()}`);
  const rows: Row[] = [];
  for (const variant of list) {
    const result = await runLoad({ port, serverPid: pid, paths: [`/api/v1/builds?${variant.query}`], headers, connections: CONNECTIONS, seconds: SECONDS });
    const non200 = Object.entries(result.statuses).reduce((n, [status, count]) => n + (status === '200' ? 0 : count), 0);
    rows.push({ variant, total: totals.get(variant.name)!, rps: result.rps, p50: result.p50, p99: result.p99, cpu: result.cpuMsPerRequest, non200 });
    // Answers still being computed must not count against the next variant.
    await fetch(`${base}/builds?limit=1`, { headers });
  }
  console.log(`${label}: load average after the rounds ${load()}`);
  console.log(`\n${label}: GET /builds at ${BUILDS.toLocaleString('en')} builds, ${CONNECTIONS} connections, ${SECONDS} s each`);
  console.log(`${'variant'.padEnd(32)} ${'total'.padStart(9)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'cpu ms'.padStart(7)} ${'target'.padStart(7)}  verdict`);
  for (const row of rows) {
    const met = row.p99 < row.variant.target && row.non200 === 0;
    console.log(
      `${row.variant.name.padEnd(32)} ${String(row.total).padStart(9)} ${row.rps.toFixed(0).padStart(7)} ${row.p50.toFixed(1).padStart(7)} ${row.p99.toFixed(1).padStart(7)} ${row.cpu.toFixed(2).padStart(7)} ${`< ${row.variant.target}`.padStart(7)}  ${met ? 'met' : row.non200 ? `NOT met (${row.non200} non-200)` : 'NOT met'}`,
    );
  }
  return rows;
}


const kept = { pat: '' };

async function runDatabase(dialect: 'sqlite' | 'postgres'): Promise<void> {
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
    let pat = '';
    let seed: Pick<SeedResult, 'busiestApp' | 'smallApp'>;
    let commit: string;
    const open = async () => (dialect === 'sqlite' ? sqliteSeedDatabase(join(dataDir, 'svc.sqlite')) : await postgresSeedDatabase(database!.url));
    if (REUSE) {
      if (!process.env.BENCH_PAT) throw new Error('BENCH_REUSE needs BENCH_PAT (the kept run prints it)');
      pat = process.env.BENCH_PAT;
      const db = await open();
      seed = await appsOf(db);
      commit = await commitOf(db);
      await db.close();
    } else {
      pat = await prepare(dataDir, env);
      const db = await open();
      console.log(`${dialect}: seeding ${BUILDS.toLocaleString('en')} builds by SQL (load average ${load()})`);
      const result = await seedMillion(db, BUILDS, (line) => console.log(line));
      const closing = performance.now();
      await db.close();
      const finishing = (performance.now() - closing) / 1000;
      console.log(
        `${dialect}: seeded in ${result.seconds.toFixed(0)} s by SQL, + ${finishing.toFixed(0)} s ${dialect === 'postgres' ? 'VACUUM ANALYZE' : 'checkpoint'}`,
      );
      seed = result;
      const again = await open();
      commit = await commitOf(again);
      await again.close();
    }
    kept.pat = pat;
    const started = performance.now();
    const relay = await startRelay(dataDir, env, [], CHECKOUT);
    children.push(relay.child);
    console.log(`${dialect}: relay ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await measure(dialect, relay.base, relay.port, relay.child.pid!, pat, variants(seed, commit));
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP || REUSE) console.log(`kept ${work}${database ? ` and ${database.url}` : ''} (BENCH_PAT=${kept.pat})`);
    else {
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    }
  }
}

async function appsOf(db: SeedDatabase): Promise<Pick<SeedResult, 'busiestApp' | 'smallApp'>> {
  const byApp = await db.all<{ id: number | string; n: number | string }>('SELECT app_id AS id, SUM(n) AS n FROM build_counts GROUP BY app_id ORDER BY SUM(n) DESC');
  const small = byApp.find((row) => Number(row.n) < BUILDS * 0.003) ?? byApp[byApp.length - 1];
  return { busiestApp: Number(byApp[0].id), smallApp: Number(small.id) };
}

/** A 7-hex prefix of a seeded commit (the `commit=` filter's usual length). */
async function commitOf(db: SeedDatabase): Promise<string> {
  const [row] = await db.all<{ c: string }>('SELECT commit_sha AS c FROM build_provenance WHERE build_id = (SELECT MAX(build_id) FROM build_provenance)');
  return row.c.slice(0, 7);
}

async function main(): Promise<void> {
  buildRelay();
  for (const dialect of DATABASES) await runDatabase(dialect as 'sqlite' | 'postgres');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
