/**
 * bench/list-ab: two builds of the relay side by side on the same seeded SQLite data, for measuring a
 * change to GET /builds on a machine shared with other work. Relay A (BENCH_A, a checkout whose dist/
 * is built) and relay B (BENCH_B, default this checkout) each get their own copy of BENCH_DATA (the
 * `data` folder a `BENCH_KEEP=1 npm run bench:list` kept: its admin is bench@example.com), and are
 * loaded in turn, the order alternating each round (A B, B A, …), BENCH_ROUNDS rounds × BENCH_SECONDS
 * per variant with BENCH_CONNECTIONS (32) connections; each run's req/s, p50, p99 and the relay's
 * CPU per request are printed, then the medians and B's CPU per request relative to A's.
 * BENCH_ONLY narrows the variants by name (bench/support/list-bench.ts; default plain and limit 100).
 * PostgreSQL: BENCH_DATABASE=<the database a `BENCH_KEEP=1 npm run bench:list:pg` kept> (and its kept
 * `data` folder as BENCH_DATA): each relay runs on its own copy, and the CPU time of its database
 * backends per request is printed too. BENCH_B_ENV='{"NAME":"value"}' adds environment to relay B only;
 * BENCH_WRITE=A,B has those relays run one write transaction before the load (a status change of build 1).
 * BENCH_AB_IGNORE=flags leaves out list-item fields B adds on purpose (see answer()).
 * Run: BENCH_A=/path/to/other/checkout BENCH_DATA=/tmp/svc-bench-list-…/data npx ts-node --transpile-only bench/list-ab.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { listVariants } from './support/list-bench';
import { backendPids, PG_ADMIN_URL, withPgAdmin } from './support/postgres-seed';
import { cpuMs, freePort, LoadResult, median, ROOT, runLoad, signIn, stopChild, waitForListening } from './support/relay';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function relayOn(root: string, dataDir: string, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), join(root, 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_BCRYPT_COST: '4', SVC_BUILD_FILE_SWEEP: 'false', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitForListening(child);
  return { child, port, base: `http://127.0.0.1:${port}/api/v1` };
}

/** A fresh read PAT of the kept data's admin. */
async function readToken(base: string): Promise<string> {
  const cookie = await signIn(base);
  const res = await fetch(`${base}/tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ name: 'list-ab', scope: 'builds:write' }),
  });
  if (res.status !== 201) throw new Error(`POST /tokens answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** One GET's status, headers (but Date) and body, as text. */
/**
 * BENCH_AB_IGNORE=flags,provenance: list-item fields one side adds on purpose (a later issue's
 * beyond-spec fields) are left out of the comparison, and so are the headers that follow the body's
 * bytes or a later issue's compression (Content-Length, ETag, Content-Encoding, Vary); all else must match.
 */
const BODY_HEADERS = ['content-length', 'etag', 'content-encoding', 'vary'];
const IGNORED = process.env.BENCH_AB_IGNORE?.split(',').filter(Boolean) ?? [];

async function answer(port: number, path: string, token: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const headers = [...res.headers].filter(([name]) => name !== 'date' && !(IGNORED.length && BODY_HEADERS.includes(name)));
  let body = await res.text();
  if (IGNORED.length) {
    const list = JSON.parse(body) as { items?: Record<string, unknown>[] };
    for (const item of list.items ?? []) for (const key of IGNORED) delete item[key];
    body = JSON.stringify(list);
  }
  return `${res.status} ${JSON.stringify(headers)}\n${body}`;
}

async function main(): Promise<void> {
  const a = process.env.BENCH_A;
  const data = process.env.BENCH_DATA;
  if (!a || !data) throw new Error('BENCH_A=<checkout with a built dist/> and BENCH_DATA=<kept bench:list data folder> are required');
  const b = process.env.BENCH_B ?? ROOT;
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-ab-'));
  const template = process.env.BENCH_DATABASE;
  const relays: { name: string; child: ReturnType<typeof spawn>; port: number; token: string; database?: string }[] = [];
  const databases: string[] = [];
  try {
    for (const [name, root] of [['A', a], ['B', b]]) {
      const env: Record<string, string> = name === 'B' && process.env.BENCH_B_ENV ? JSON.parse(process.env.BENCH_B_ENV) : {};
      let database: string | undefined;
      if (template) {
        // PostgreSQL: each relay on its own copy of the kept database (bench:list:pg with BENCH_KEEP=1).
        database = `${template}_ab_${name.toLowerCase()}`;
        await withPgAdmin((c) => c.query(`CREATE DATABASE ${database} TEMPLATE ${template}`));
        databases.push(database);
        env.SVC_DATABASE_URL = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${database}` }).toString();
      }
      const copy = join(work, name);
      // The build files are empty and never written: linked. The database is copied (tokens' last use, sessions).
      execFileSync('cp', ['-al', data, copy]);
      for (const f of ['svc.sqlite', 'svc.sqlite-wal', 'svc.sqlite-shm']) execFileSync('sh', ['-c', `[ -e "${data}/${f}" ] && cp --remove-destination "${data}/${f}" "${copy}/${f}" || true`]);
      const relay = await relayOn(root, copy, env);
      relays.push({ name, ...relay, token: await readToken(relay.base), database });
    }
    // Stand-ins for the app, commit and pull request the variants that filter on one name: A and B are compared on the same query all the same.
    const all = listVariants({ builds: Number(process.env.BENCH_BUILDS ?? 100_000), busiestApp: 1, smallApp: 1, commit: '0000000', pullRequest: 1 });
    const variants = process.env.BENCH_ONLY ? all : all.filter((v) => v.name === 'plain' || v.name === 'limit 100');
    // Both must answer alike: status, headers (but Date) and body.
    for (const variant of variants) {
      const [a, b] = await Promise.all(relays.map((relay) => answer(relay.port, variant.paths[0], relay.token)));
      if (a !== b) throw new Error(`${variant.name}: A and B answer differently:\n${a.slice(0, 600)}\n---\n${b.slice(0, 600)}`);
    }
    console.log('A and B answer every variant alike (status, headers, body)');
    for (const name of process.env.BENCH_WRITE?.split(',') ?? []) {
      // One write transaction first (a status change of the oldest build, off every first page), as any
      // relay in use has had (AsyncLocalStorage was on for good after the first TransactionRunner.run before item 40).
      const b = relays.find((relay) => relay.name === name)!;
      const cookie = await signIn(`http://127.0.0.1:${b.port}/api/v1`);
      const res = await fetch(`http://127.0.0.1:${b.port}/api/v1/builds/1`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Cookie: cookie },
        body: JSON.stringify({ status_label: 'Rejected' }),
      });
      if (res.status !== 200) throw new Error(`PATCH /builds/1 answered ${res.status}: ${await res.text()}`);
      console.log(`${name} has run a write transaction (PATCH /builds/1)`);
    }
    for (const variant of variants) {
      // Each relay's first seconds on a variant (JIT, caches) are left out of the figures.
      for (const relay of relays) {
        await runLoad({ port: relay.port, paths: variant.paths, headers: { Authorization: `Bearer ${relay.token}` }, connections: CONNECTIONS, seconds: 2 });
      }
      const results: Record<string, LoadResult[]> = { A: [], B: [] };
      const dbCpu: Record<string, number[]> = { A: [], B: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const relay of round % 2 ? [...relays].reverse() : relays) {
          const backends = relay.database ? await backendPids(relay.database) : [];
          const dbBefore = backends.reduce((sum, pid) => sum + cpuMs(pid), 0);
          const r = await runLoad({
            serverPid: relay.child.pid,
            port: relay.port,
            paths: variant.paths,
            headers: { Authorization: `Bearer ${relay.token}` },
            connections: CONNECTIONS,
            seconds: SECONDS,
          });
          if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${relay.name}: ${JSON.stringify(r.statuses)} ${r.errors} errors`);
          results[relay.name].push(r);
          const db = (backends.reduce((sum, pid) => sum + cpuMs(pid), 0) - dbBefore) / Math.max(1, r.completed);
          dbCpu[relay.name].push(db);
          console.log(
            `${variant.name} ${relay.name}: ${r.rps.toFixed(0)}/s p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} ms, ${r.cpuMsPerRequest.toFixed(3)} ms CPU/req` +
              `${relay.database ? `, database ${db.toFixed(3)} ms` : ''}; load ${loadavg()[0].toFixed(1)}`,
          );
        }
      }
      const m = (name: string, pick: (r: LoadResult) => number) => median(results[name].map(pick));
      for (const name of ['A', 'B']) {
        console.log(
          `median ${variant.name} ${name}: ${m(name, (r) => r.rps).toFixed(0)}/s, p50 ${m(name, (r) => r.p50).toFixed(1)} ms, p99 ${m(name, (r) => r.p99).toFixed(1)} ms, ` +
            `${m(name, (r) => r.cpuMsPerRequest).toFixed(3)} ms CPU/req${template ? `, database ${median(dbCpu[name]).toFixed(3)} ms` : ''}`,
        );
      }
      // Each round's two runs are next to each other in time, so their ratio cancels most of the machine's load.
      const ratios = results.A.map((r, i) => results.B[i].cpuMsPerRequest / r.cpuMsPerRequest);
      const lower = ratios.filter((ratio) => ratio < 1).length;
      const change = m('B', (r) => r.cpuMsPerRequest) / m('A', (r) => r.cpuMsPerRequest) - 1;
      console.log(
        `${variant.name}: B's CPU per request ${(change * 100).toFixed(1)} % against A's by the medians, ` +
          `${((median(ratios) - 1) * 100).toFixed(1)} % by the median of the rounds' ratios (lower in ${lower} of ${ROUNDS} rounds)`,
      );
      if (template) {
        const both = results.A.map((r, i) => (results.B[i].cpuMsPerRequest + dbCpu.B[i]) / (r.cpuMsPerRequest + dbCpu.A[i]));
        const db = dbCpu.A.map((a, i) => dbCpu.B[i] / a);
        console.log(
          `${variant.name}: B's database CPU per request ${((median(db) - 1) * 100).toFixed(1)} %, relay and database together ` +
            `${((median(both) - 1) * 100).toFixed(1)} % by the median of the rounds' ratios (lower in ${both.filter((x) => x < 1).length} of ${ROUNDS})`,
        );
      }
    }
  } finally {
    await Promise.all(relays.map((r) => stopChild(r.child)));
    for (const database of databases) await withPgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
