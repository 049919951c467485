/**
 * bench/scale/list: GET /api/v1/builds throughput at 100,000 builds (BENCH_BUILDS) on PostgreSQL,
 * for one relay instance and for two behind a round-robin proxy, in one run, printed as a ratio.
 *
 * Both instances are `npm start`'s compiled relay as child processes on one PostgreSQL database
 * (a fresh one on BENCH_DATABASE_URL, default the test server) and one Redis (BENCH_REDIS_URL),
 * sharing one data folder (the builds' empty seed files). The proxy (bench/support/round-robin-proxy.js)
 * runs in its own process; "one" is that proxy in front of instance A alone, "two" in front of A and
 * B, so both sides pay the same hop. Seeding writes the rows straight into PostgreSQL (the triggers
 * keep build_counts) plus an empty file per build (the orphan sweep removes rows without a file).
 *
 * Each variant: BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (4) after 1 s of
 * warm-up, one then two, BENCH_ROUNDS (3) times; medians and the ratio two/one are printed. On a
 * machine with fewer cores than instances + proxy + load generator the ratio stays near 1: the
 * figure says what a second instance buys on this machine, not on a real fleet.
 * Run: npm run bench:scale:list   (not part of npm test)
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase, seedPostgres } from '../support/postgres-seed';
import { buildRelay, freePort, issuePat, LoadResult, median, runLoad, startRelay, stopChild, waitForListening } from '../support/relay';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const VARIANTS = [
  { name: 'plain', path: '/api/v1/builds?limit=20' },
  { name: 'status', path: '/api/v1/builds?status=Done' },
  { name: 'page 1000', path: '/api/v1/builds?page=1000' },
];

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-scale-list-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  const database = await createBenchDatabase();
  try {
    buildRelay();
    const env = {
      SVC_DATABASE_URL: database.url,
      SVC_REDIS_URL: REDIS_URL,
      SVC_REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
      SVC_LOG_LEVEL: 'warn',
    };
    const a = await startRelay(dataDir, env);
    children.push(a.child);
    const pat = await issuePat(a.base);
    process.stdout.write(`Seeding ${BUILDS} builds… `);
    await seedPostgres(database.url, join(dataDir, 'builds'), BUILDS);
    process.stdout.write('done\n');
    const b = await startRelay(dataDir, env);
    children.push(b.child);

    const one = await startProxy([a.port]);
    children.push(one.child);
    const two = await startProxy([a.port, b.port]);
    children.push(two.child);
    const headers = { Authorization: `Bearer ${pat}` };
    const [viaOne, viaTwo] = await Promise.all(
      [one.port, two.port].map((port) => fetch(`http://127.0.0.1:${port}${VARIANTS[0].path}`, { headers }).then((r) => r.json())),
    );
    if (viaOne.total !== BUILDS || viaTwo.total !== BUILDS) throw new Error(`expected ${BUILDS} builds, got ${viaOne.total} / ${viaTwo.total}`);

    console.log(`\nGET /builds at ${BUILDS} builds on PostgreSQL, ${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds`);
    console.log('variant              one instance   two instances   ratio (two / one)');
    for (const variant of VARIANTS) {
      const runs: { one: LoadResult[]; two: LoadResult[] } = { one: [], two: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const [label, proxy] of [['one', one], ['two', two]] as const) {
          const result = await runLoad({ port: proxy.port, paths: [variant.path], headers, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: 1 });
          if (result.errors || Object.keys(result.statuses).some((s) => s !== '200')) {
            throw new Error(`${variant.name} via ${label}: ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
          }
          runs[label].push(result);
        }
      }
      const rpsOne = median(runs.one.map((r) => r.rps));
      const rpsTwo = median(runs.two.map((r) => r.rps));
      console.log(
        `${variant.name.padEnd(20)} ${rpsOne.toFixed(0).padStart(8)} req/s ${rpsTwo.toFixed(0).padStart(10)} req/s ${(rpsTwo / rpsOne).toFixed(2).padStart(12)}`,
      );
    }
  } finally {
    await Promise.all(children.map(stopChild));
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function startProxy(targets: number[]): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '..', 'support', 'round-robin-proxy.js'), String(port), ...targets.map(String)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitForListening(child);
  return { child, port };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
