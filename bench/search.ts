/**
 * bench/search: GET /api/v1/builds?search= at 100,000 builds (BENCH_BUILDS), on SQLite and then on
 * PostgreSQL (BENCH_DATABASE_URL's server, a fresh database dropped at the end), seeded as
 * bench/list and bench/list-postgres seed them (labels `feature/branch-N` on 30 %, 96 apps
 * `Seed app N` / `com.example.seedN`, build numbers 1000…). One request at a time: each search is
 * asked BENCH_REPEAT (30) times after one warm-up and the median, 99th percentile and slowest
 * answer times are printed with the match count; broad terms (`seed`, `branch`, `app`: 27-58 % of the
 * builds) walk the sort index, rare ones gather their matches (docs/decisions.md#issue-24-search).
 * Figures: docs/builds.md "Search".
 *
 *     npx ts-node --transpile-only bench/search.ts      (BENCH_DATABASES=sqlite or postgres for one)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIST_BUILDS, uploadFixtures } from './support/list-bench';
import { createBenchDatabase, seedPostgres } from './support/postgres-seed';
import { buildRelay, issuePat, median, startRelay } from './support/relay';
import { seedSqlite } from './support/sqlite-seed';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
/** BENCH_DATABASES=sqlite or postgres runs one of the two. */
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');

/** From one rare label to terms that match most builds, alone and with the spec's filters. */
const SEARCHES = [
  'search=feature%2Fbranch-123',
  'search=branch-42',
  'search=seed%20app%207',
  'search=com.example.seed1',
  'search=51042',
  'search=1.2',
  'search=42',
  'search=feature&status=Done',
  'search=seed&sort=version_name&dir=asc',
  'search=branch&page=200',
  'search=branch',
  'search=seed',
  'search=app&sort=status_label&dir=desc',
  'status=untriaged',
  'status=untriaged&sort=version_name&dir=desc',
];

async function measure(label: string, env: Record<string, string>, seed: (dataDir: string) => Promise<unknown>): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-search-'));
  const dataDir = join(work, 'data');
  try {
    let relay = await startRelay(dataDir, env);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();
    process.stdout.write(`${label}: seeding ${LIST_BUILDS} builds… `);
    await seed(dataDir);
    relay = await startRelay(dataDir, env);
    console.log('done');
    try {
      console.log(`${'query'.padEnd(48)} ${'total'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`);
      for (const query of SEARCHES) {
        const url = `${relay.base}/builds?${query}`;
        const headers = { Authorization: `Bearer ${pat}` };
        const first = await fetch(url, { headers });
        if (first.status !== 200) throw new Error(`${query} answered ${first.status}: ${await first.text()}`);
        const { total } = (await first.json()) as { total: number };
        const times: number[] = [];
        for (let i = 0; i < REPEAT; i++) {
          const started = performance.now();
          await (await fetch(url, { headers })).arrayBuffer();
          times.push(performance.now() - started);
        }
        const p99 = [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.99) - 1];
        console.log(
          `${query.padEnd(48)} ${String(total).padStart(7)} ${median(times).toFixed(1).padStart(8)} ${p99.toFixed(1).padStart(8)} ${Math.max(...times).toFixed(1).padStart(8)}`,
        );
      }
    } finally {
      await relay.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  buildRelay();
  if (DATABASES.includes('sqlite')) await measure('SQLite', {}, async (dataDir) => seedSqlite(join(dataDir, 'svc.sqlite'), join(dataDir, 'builds'), LIST_BUILDS));
  if (!DATABASES.includes('postgres')) return;
  const database = await createBenchDatabase();
  try {
    await measure('PostgreSQL', { SVC_DATABASE_URL: database.url }, (dataDir) => seedPostgres(database.url, join(dataDir, 'builds'), LIST_BUILDS));
  } finally {
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
