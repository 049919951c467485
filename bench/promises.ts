/**
 * bench/promises (issue 42 item 1): the promises one request of each soak route creates in the relay,
 * counted by an async hook preloaded into it (bench/support/count-promises.js), 200 requests one
 * after another after 50 unmeasured. A count, not a time: the same on a quiet machine and a busy one,
 * where the CPU-time A/Bs of a few µs drown in this machine's noise (two runs of one build differ
 * by 10–30 % by which was started first: bench/results/2026-12-05-*-promises.md). Each promise is
 * a microtask and an allocation, and while the transactions' AsyncLocalStorage is on (PostgreSQL
 * under writes, docs/decisions.md#item-40) an async hook call too.
 * BENCH_CHECKOUT=<dir with dist/> counts that build too, in the same run (an A/B); BENCH_DATABASE=postgres
 * runs both on fresh PostgreSQL databases. COUNT_STACKS=<route name part> prints where that route's
 * promises are made (the first four frames of each, by count).
 * Prints per route: status, promises a request (A, then B), and the soak's mix averaged by its shares.
 * Run: npm run bench:promises
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase } from './support/postgres-seed';
import { buildRelay, issuePat, ROOT, signIn, startRelay, stopChild } from './support/relay';

const MEASURED = 200;
const WARMUP = 50;
/** The soak's mix (bench/soak.ts): each route's share of its requests. */
const SOAK_SHARES: Record<string, number> = {
  'GET /builds': 0.45,
  'GET /builds/:id': 0.2,
  'GET /comments': 0.08,
  'POST /comments': 0.07,
  'POST /builds': 0.08,
  'PATCH /builds/:id': 0.06,
  'POST /auth/login': 0.06,
};

type Route = [name: string, call: () => Promise<Response>];

async function countRelay(label: string, checkout: string | undefined, work: string): Promise<Map<string, { status: number; promises: number }>> {
  const countFile = join(work, `${label}.count`);
  const database = process.env.BENCH_DATABASE === 'postgres' ? await createBenchDatabase() : null;
  const env = { COUNT_FILE: countFile, COUNT_STACKS: process.env.COUNT_STACKS ?? '', ...(database ? { SVC_DATABASE_URL: database.url } : {}) };
  const relay = await startRelay(join(work, label), env, ['-r', join(__dirname, 'support', 'count-promises.js')], checkout);
  const counted = async () => {
    process.kill(relay.child.pid!, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 100));
    return Number(readFileSync(countFile, 'utf8'));
  };
  const results = new Map<string, { status: number; promises: number }>();
  try {
    for (const [name, call] of await routesOf(relay.base)) {
      for (let i = 0; i < WARMUP; i++) await (await call()).arrayBuffer();
      const before = await counted();
      let status = 0;
      for (let i = 0; i < MEASURED; i++) {
        const res = await call();
        status = res.status;
        await res.arrayBuffer();
      }
      results.set(name, { status, promises: ((await counted()) - before) / MEASURED });
      if (process.env.COUNT_STACKS && name.includes(process.env.COUNT_STACKS)) {
        console.log(`${label}, ${name}, where its promises are made (of ${MEASURED} requests):\n${readFileSync(`${countFile}.stacks`, 'utf8')}\n`);
      }
    }
  } finally {
    await stopChild(relay.child);
    await database?.drop();
  }
  return results;
}

/** One build to read, comment and review, a PAT and a session: each soak route as the soak sends it. */
async function routesOf(base: string): Promise<Route[]> {
  const pat = { Authorization: `Bearer ${await issuePat(base)}` };
  const cookie = await signIn(base);
  const apk = readFileSync(join(ROOT, 'test', 'fixtures', 'builds', 'literal-label.apk'));
  const upload = () => {
    const form = new FormData();
    form.append('file', new Blob([apk]), 'bench.apk');
    return fetch(`${base}/builds`, { method: 'POST', headers: pat, body: form });
  };
  const build = (await (await upload()).json()) as { id: number };
  let review = 0;
  return [
    ['GET /builds', () => fetch(`${base}/builds`, { headers: pat })],
    ['GET /builds/:id', () => fetch(`${base}/builds/${build.id}`, { headers: pat })],
    ['GET /comments', () => fetch(`${base}/comments?build_id=${build.id}`, { headers: { Cookie: cookie } })],
    [
      'POST /comments',
      () => {
        const form = new FormData();
        form.append('build_id', String(build.id));
        form.append('body', 'bench comment');
        return fetch(`${base}/comments`, { method: 'POST', headers: pat, body: form });
      },
    ],
    ['POST /builds', upload],
    [
      'PATCH /builds/:id',
      () =>
        fetch(`${base}/builds/${build.id}`, {
          method: 'PATCH',
          headers: { Cookie: cookie, 'Content-Type': 'application/json', Origin: new URL(base).origin },
          body: JSON.stringify({ status_label: review++ % 2 ? 'Backlog' : 'In Progress' }),
        }),
    ],
    [
      'POST /auth/login',
      () => fetch(`${base}/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-1' }) }),
    ],
  ];
}

async function main(): Promise<void> {
  buildRelay();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-promises-'));
  try {
    const sides = [['A', undefined] as const, ...(process.env.BENCH_CHECKOUT ? [['B', process.env.BENCH_CHECKOUT] as const] : [])];
    const counts = [];
    for (const [label, checkout] of sides) counts.push(await countRelay(label, checkout, work));
    console.log(`promises a request (${MEASURED} requests each, ${process.env.BENCH_DATABASE === 'postgres' ? 'PostgreSQL' : 'SQLite'}): ${sides.map(([label, dir]) => `${label} ${dir ?? 'this checkout'}`).join(', ')}`);
    for (const name of Object.keys(SOAK_SHARES)) {
      console.log(`${name.padEnd(20)} ${counts.map((c) => `${c.get(name)!.status} ${c.get(name)!.promises.toFixed(1).padStart(6)}`).join('   ')}`);
    }
    const mix = counts.map((c) => Object.entries(SOAK_SHARES).reduce((sum, [name, share]) => sum + share * c.get(name)!.promises, 0));
    console.log(`${'the soak mix'.padEnd(20)} ${mix.map((m) => `    ${m.toFixed(1).padStart(6)}`).join('   ')}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
