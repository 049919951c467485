/**
 * What the GET /builds benchmarks share, whichever database holds the rows: every list variant the
 * relay answers, the fixture uploads through the API, the rows of bench/search and bench/compare
 * (seedBuilds), the check that the floor lists the relay's builds, the load rounds (also those
 * against the raw baseline, raw-list-bench.ts) and the verdicts against the floor (issue 42 item 3).
 * The database-specific parts (the floor's server, the seed's database) stay in bench/million.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMs, LoadResult, median, ROOT, runLoad } from './relay';

export const LIST_BUILDS = Number(process.env.BENCH_BUILDS ?? 100_000);
const ONLY = process.env.BENCH_ONLY?.split(',');

export interface Variant {
  name: string;
  paths: string[];
}

/**
 * What the variants ask of the seeded rows (million-seed.ts listCorpus): its size (the deep pages
 * are placed in it), the busiest app and a small one, a seeded commit's 7-hex prefix and a pull request.
 */
export interface ListCorpus {
  builds: number;
  busiestApp: number;
  smallApp: number;
  commit: string;
  pullRequest: number;
}

/**
 * Every kind of list the relay answers (BENCH_ONLY narrows them by name): spec §4's filters, sorts,
 * `q` and pages, the deep pages (by upload time from either end, by another sort, filtered), and
 * those beyond the spec (`untriaged`, `flagged`, `branch`, `commit`, `pull_request`, `gate`, `search`
 * with its index, walk and scan modes, a short term, several terms, `#pr` and a commit prefix).
 * The pages are those of a million builds, or as deep as a smaller seed allows, named by their number.
 */
export function listVariants(corpus: ListCorpus): Variant[] {
  const last = Math.max(0, Math.floor((corpus.builds - 1) / 20));
  const page = (wanted: number, share: number) => Math.min(wanted, Math.floor(last * share));
  const [p1, p2, ps, pa, pq, pm] = [page(1000, 0.2), page(10_000, 0.5), page(500, 0.04), page(1000, 0.025), page(200, 0.05), Math.floor(last / 2)];
  const app = corpus.busiestApp;
  const variants: [string, string][] = [
    ['plain', 'limit=20'],
    ['status', 'status=Done'],
    ['status untriaged', 'status=untriaged'],
    ['platform', 'platform=ios'],
    ['app_id (busiest)', `app_id=${app}`],
    ['app_id (small)', `app_id=${corpus.smallApp}`],
    ['app_id platform status', `app_id=${app}&platform=android&status=Rejected`],
    ['uploaded_at asc', 'sort=uploaded_at&dir=asc'],
    ['version_name desc', 'sort=version_name&dir=desc'],
    ['version_name asc', 'sort=version_name&dir=asc'],
    ['status_label desc', 'sort=status_label&dir=desc'],
    ['status_label asc', 'sort=status_label&dir=asc'],
    ['limit 100', 'limit=100'],
    [`page ${p1}`, `page=${p1}`],
    [`page ${p2}`, `page=${p2}`],
    [`middle page (${pm})`, `page=${pm}`],
    [`last page (${last})`, `page=${last}`],
    [`uploaded_at asc page ${p2}`, `sort=uploaded_at&dir=asc&page=${p2}`],
    [`status page ${ps}`, `status=Done&page=${ps}`],
    [`version_name asc page ${p1}`, `sort=version_name&dir=asc&page=${p1}`],
    [`status_label desc page ${p2}`, `sort=status_label&dir=desc&page=${p2}`],
    [`app_id page ${pa}`, `app_id=${app}&page=${pa}`],
    ['page past the end', `page=${last + 10}`],
    ['flagged', 'flagged=true'],
    ['flagged platform', 'flagged=true&platform=android'],
    ['branch', 'branch=main'],
    ['branch status', 'branch=main&status=Done'],
    ['branch version_name asc', 'branch=main&sort=version_name&dir=asc'],
    ['commit', `commit=${corpus.commit}`],
    ['pull_request', `pull_request=${corpus.pullRequest}`],
    ['gate', 'gate=failed'],
    ['gate app_id', `gate=pending&app_id=${app}`],
    ['q', 'q=1.2'],
    ['q short', 'q=1.'],
    ['q version_name asc', 'q=1.2&sort=version_name&dir=asc'],
    ['search app name', 'search=kestrel'],
    ['search rare label', 'search=feature%2Fbranch-123'],
    ['search broad', 'search=branch'],
    ['search short term', 'search=ke'],
    ['search two terms', 'search=wallet%201.2'],
    ['search + status', 'search=wallet&status=Done'],
    [`search page ${pq}`, `search=branch&page=${pq}`],
    ['search #pull request', `search=%23${corpus.pullRequest}`],
    ['search commit', `search=${corpus.commit}`],
    ['search + branch', 'search=wallet&branch=main'],
  ];
  return variants
    .map(([name, query]) => ({ name, paths: [`/api/v1/builds?${query}`] }))
    .filter((variant) => !ONLY || ONLY.includes(variant.name));
}

/** Four real builds through POST /builds (two APKs, an .app.zip, a .tar.gz), so the relay creates their apps. */
export async function uploadFixtures(base: string, pat: string): Promise<void> {
  for (const name of ['literal-label.apk', 'string-label.apk', 'xml-root.app.zip', 'binary-root.tar.gz']) {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(ROOT, 'test', 'fixtures', 'builds', name))]), name);
    const res = await fetch(`${base}/builds`, { method: 'POST', headers: { Authorization: `Bearer ${pat}` }, body: form });
    if (res.status !== 201) throw new Error(`upload of ${name} answered ${res.status}: ${await res.text()}`);
  }
}

export interface SeedApp {
  id: number;
  name: string;
  bundle: string;
  platform: string;
}

/** A builds row as the relay writes it (times in epoch ms), in BUILD_ROW_COLUMNS' order. */
export type BuildRow = [
  appId: number,
  name: string,
  versionName: string | null,
  buildNumber: string,
  versionLabel: string | null,
  statusLabel: string | null,
  platform: string,
  bundleId: string,
  fileName: string,
  originalName: string,
  fileSize: number,
  uploadedAt: number,
  completedAt: number | null,
  deleteAfter: number | null,
];

export const BUILD_ROW_COLUMNS =
  'app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id, file_name, original_name, file_size, uploaded_at, completed_at, delete_after';

/** Who uploaded a seeded build: the first admin, a CI member without a display name, or an account since deleted. */
export type SeedUploader = 'admin' | 'ci' | 'former';

export interface SeedBuild {
  row: BuildRow;
  /** Its upload entry in the status history, as the relay writes it (GET /builds shows the uploader). */
  uploader: SeedUploader;
  hasIcon: boolean;
}

export const SEED_CI_MEMBER = { email: 'ci-bot@example.com', displayName: null };
/** What an upload entry keeps of a deleted account. */
export const SEED_FORMER_MEMBER = { email: 'former@example.com', displayName: 'Former Member' };
/** A 1×1 PNG: the list only says whether there is an icon. */
export const SEED_ICON_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * Builds `from` … `count - 1` over `apps`, the same on every run: 30 % on the first app (the app_id
 * variant reads one with thousands of builds), a fifth of each status and unset, 10 % without a
 * version, some labels, deletion dates on 2 %; one upload every ~5 minutes up to a day ago; 80 %
 * uploaded by the admin, 15 % by CI, 5 % by a deleted account; 40 % with an icon.
 */
export function* seedBuilds(apps: SeedApp[], from: number, count: number, now: number): Generator<SeedBuild> {
  let state = 42;
  const random = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const statuses = [null, 'Backlog', 'In Progress', 'Done', 'Rejected'] as const;
  const start = now - (count * 300_000 + 86_400_000);
  for (let i = from; i < count; i++) {
    const app = random() < 0.3 ? apps[0] : pick(apps);
    const platform = app.platform === 'both' ? pick(['ios', 'android']) : app.platform;
    const status = pick(statuses);
    const uploadedAt = start + i * 300_000 + Math.floor(random() * 299_000);
    const versionName = random() < 0.1 ? null : `${Math.floor(random() * 10)}.${Math.floor(random() * 30)}.${Math.floor(random() * 100)}`;
    const row: BuildRow = [
      app.id,
      app.name,
      versionName,
      String(1000 + i),
      random() < 0.3 ? `feature/branch-${Math.floor(random() * 500)}` : null,
      status,
      platform,
      app.bundle,
      `seed-${i}.${platform === 'ios' ? 'zip' : 'apk'}`,
      platform === 'ios' ? 'App.app.zip' : 'app-release.apk',
      1_000_000 + Math.floor(random() * 50_000_000),
      uploadedAt,
      status === 'Done' || status === 'Rejected' ? uploadedAt + 3_600_000 : null,
      random() < 0.02 ? now + 30 * 86_400_000 : null,
    ];
    const who = random();
    yield { row, uploader: who < 0.8 ? 'admin' : who < 0.95 ? 'ci' : 'former', hasIcon: random() < 0.4 };
  }
}

/** The ids a GET /builds body lists, in order, and its total (a body that is no list: null). */
export function listedIds(body: string): { ids: number[]; total: number } | null {
  try {
    const { items, total } = JSON.parse(body) as { items?: { id: number }[]; total?: number };
    return Array.isArray(items) && typeof total === 'number' ? { ids: items.map((item) => item.id), total } : null;
  } catch {
    return null;
  }
}

/** One variant's answer from each side. */
export interface AnswerPair {
  name: string;
  relay: { status: number; body: string };
  floor: { status: number; body: string };
}

/**
 * The floor must do the relay's work: for every variant both answer 200 with the same build ids in
 * the same order and the same total. Throws, naming each variant that differs; a body that differs
 * otherwise (a field) is printed, since the floor's JSON is written to be the relay's byte for byte.
 */
export function checkSameIds(pairs: AnswerPair[], label: string): void {
  const wrong: string[] = [];
  let otherwise = 0;
  for (const { name, relay, floor } of pairs) {
    const [r, f] = [relay, floor].map((answer) => (answer.status === 200 ? listedIds(answer.body) : null));
    if (!r || !f || r.total !== f.total || r.ids.join() !== f.ids.join()) {
      wrong.push(`${name}: relay ${relay.status} ${r ? `total ${r.total} ids ${r.ids.slice(0, 8).join(',')}` : relay.body.slice(0, 200)}` +
        ` | floor ${floor.status} ${f ? `total ${f.total} ids ${f.ids.slice(0, 8).join(',')}` : floor.body.slice(0, 200)}`);
    } else if (relay.body !== floor.body) {
      otherwise++;
      const at = [...relay.body].findIndex((c, i) => c !== floor.body[i]);
      console.log(`${label} ${name}: same ids, bodies differ from character ${at}\n  relay: ${relay.body.slice(Math.max(0, at - 80), at + 120)}\n  floor: ${floor.body.slice(Math.max(0, at - 80), at + 120)}`);
    }
  }
  if (wrong.length) throw new Error(`${label}: the floor and the relay list different builds for ${wrong.length} variant(s):\n${wrong.join('\n')}`);
  console.log(`${label}: the floor lists the relay's builds in the relay's order for all ${pairs.length} variants${otherwise ? ` (${otherwise} bodies differ otherwise)` : ', byte for byte'}`);
}

/** Every variant asked of both servers (once each, one after the other). */
export async function fetchAnswers(relayPort: number, floorPort: number, list: Variant[], headers: Record<string, string>): Promise<AnswerPair[]> {
  const ask = async (port: number, path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    return { status: res.status, body: await res.text() };
  };
  const pairs: AnswerPair[] = [];
  for (const variant of list) pairs.push({ name: variant.name, relay: await ask(relayPort, variant.paths[0]), floor: await ask(floorPort, variant.paths[0]) });
  return pairs;
}

export interface Server {
  port: number;
  pid: number;
  /** Processes working for this server whose CPU time counts too (PostgreSQL backends of its connections). */
  helperPids?: () => Promise<number[]>;
}

export interface Measured extends LoadResult {
  /** CPU time of the helper processes per answer, ms (NaN without helpers). */
  helperCpuMsPerRequest: number;
}

async function measure(server: Server, load: (server: Server) => Promise<LoadResult>): Promise<Measured> {
  if (!server.helperPids) return { ...(await load(server)), helperCpuMsPerRequest: NaN };
  // Helpers started during the load (a pool opening connections as concurrency grows) count from zero.
  const before = new Map((await server.helperPids()).map((pid) => [pid, cpuMs(pid) || 0]));
  const result = await load(server);
  const spent = (await server.helperPids()).reduce((sum, pid) => sum + (cpuMs(pid) || 0) - (before.get(pid) ?? 0), 0);
  return { ...result, helperCpuMsPerRequest: spent / Math.max(1, result.completed) };
}

/** Issue 42 item 3's targets against the floor in the same run. */
export const ANSWERS_TARGET = 0.8;
export const P99_TARGET = 1.3;

export interface LoadOptions {
  rounds: number;
  seconds: number;
  connections: number;
}

/** The load options from BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, with a suite's defaults. */
export function loadOptions(defaults: LoadOptions): LoadOptions {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  return { rounds: env('BENCH_ROUNDS', defaults.rounds), seconds: env('BENCH_SECONDS', defaults.seconds), connections: env('BENCH_CONNECTIONS', defaults.connections) };
}

/** Each side's runs of one variant, in round order. */
export interface VariantRuns {
  relay: Measured[];
  other: Measured[];
}

/**
 * `rounds` rounds of load per variant from `connections` connections, after SUITE_WARMUP_SECONDS of
 * the first variant on each side (not recorded: both sides were just started). A round is four
 * turns back to back, relay, other, other, relay, each `seconds / 2` after TURN_WARMUP_SECONDS, and
 * each side's two turns are pooled. In turns because the side that went first did worse: a million
 * builds on PostgreSQL, the relay's first turn on `plain` answered 660 a second and its second 1,158,
 * the floor's 1,016 then 1,405 (bench/results/2026-12-05-721c5f2-million-turns.md); the relay always
 * went first. A slow variant's turn goes on until it has two answers a connection (at most
 * MAX_TURN_SECONDS): its connections answer in waves, and a 3 s window caught one wave or none
 * (`search two terms` on PostgreSQL read 0 answers against 3).
 */
export async function loadRounds(list: Variant[], relay: Server, other: Server, headers: Record<string, string>, options: LoadOptions): Promise<Map<string, VariantRuns>> {
  const { rounds, seconds, connections } = options;
  const results = new Map<string, VariantRuns>();
  // Both sides freshly started: the first variant measured the relay's JIT and pool warming up.
  for (const server of [relay, other]) await runLoad({ port: server.port, paths: list[0].paths, headers, connections, seconds: SUITE_WARMUP_SECONDS });
  for (let round = 1; round <= rounds; round++) {
    for (const variant of list) {
      const entry = results.get(variant.name) ?? { relay: [], other: [] };
      results.set(variant.name, entry);
      const load = (server: Server) =>
        runLoad({
          port: server.port,
          serverPid: server.pid,
          paths: variant.paths,
          headers,
          connections,
          seconds: seconds / 2,
          warmupSeconds: TURN_WARMUP_SECONDS,
          minAnswers: 2 * connections,
          maxSeconds: MAX_TURN_SECONDS,
          keepLatencies: true,
        });
      const relayFirst = await measure(relay, load);
      const otherFirst = await measure(other, load);
      const otherSecond = await measure(other, load);
      const relaySecond = await measure(relay, load);
      entry.relay.push(pooled(relayFirst, relaySecond));
      entry.other.push(pooled(otherFirst, otherSecond));
    }
    if (rounds > 1) process.stdout.write(`round ${round}/${rounds} done\n`);
  }
  return results;
}

const SUITE_WARMUP_SECONDS = 3;
const TURN_WARMUP_SECONDS = 0.5;
const MAX_TURN_SECONDS = 15;

/** One side's turns as one run: answers over their seconds, percentiles over their latencies together, CPU over their answers. */
export function pooled(...turns: Measured[]): Measured {
  const latencies = turns.flatMap((turn) => turn.latencies ?? []).sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
  const sum = (value: (turn: Measured) => number) => turns.reduce((total, turn) => total + value(turn), 0);
  const completed = sum((turn) => turn.completed);
  const spent = (perAnswer: (turn: Measured) => number) => sum((turn) => perAnswer(turn) * Math.max(1, turn.completed)) / Math.max(1, completed);
  const statuses: Record<string, number> = {};
  for (const turn of turns) for (const [status, count] of Object.entries(turn.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const seconds = sum((turn) => turn.seconds);
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: pct(50),
    p99: pct(99),
    max: latencies[latencies.length - 1] ?? NaN,
    statuses,
    errors: sum((turn) => turn.errors),
    completed,
    cpuMsPerRequest: spent((turn) => turn.cpuMsPerRequest),
    helperCpuMsPerRequest: spent((turn) => turn.helperCpuMsPerRequest),
  };
}

/**
 * loadRounds against the floor; prints a table of the medians, then two verdict lines per variant,
 * each led by `label` (the database) in the words bench/support/run-report.ts reads: answers per
 * second as a ratio to the floor's (target >= 0.8) and p99 as a ratio to the floor's (target <= 1.3),
 * each OK or MISS (a non-200 answer from either side is a MISS). Returns how many lines missed.
 */
export async function measureVariants(
  label: string,
  title: string,
  list: Variant[],
  relay: Server,
  floor: Server,
  headers: Record<string, string>,
  options: LoadOptions,
): Promise<number> {
  const { rounds, seconds, connections } = options;
  const results = await loadRounds(list, relay, floor, headers, options);

  const helpers = Boolean(relay.helperPids);
  console.log(`\n${label}: ${title}, ${connections} connections, median of ${rounds} x ${seconds} s a side in turns (relay, floor, floor, relay; a slow variant's longer), relay against the floor (bench/baselines/list-query.ts)`);
  if (helpers) console.log('(db ms/req: CPU time of the PostgreSQL backends serving each side, per answer)');
  const db = (runs: Measured[]) => (helpers ? median(runs.map((x) => x.helperCpuMsPerRequest)).toFixed(3).padStart(10) : '');
  console.log(
    `${'variant'.padEnd(34)} relay req/s  p50 ms  p99 ms  cpu ms${helpers ? '  db ms/req' : ''} | floor req/s  p50 ms  p99 ms  cpu ms${helpers ? '  db ms/req' : ''}`,
  );
  const verdicts: string[] = [];
  let missed = 0;
  for (const variant of list) {
    const { relay: r, other: f } = results.get(variant.name)!;
    const m = (runs: Measured[], key: 'rps' | 'p50' | 'p99' | 'cpuMsPerRequest') => median(runs.map((x) => x[key]));
    const row = (runs: Measured[]) =>
      `${m(runs, 'rps').toFixed(0).padStart(11)} ${m(runs, 'p50').toFixed(1).padStart(7)} ${m(runs, 'p99').toFixed(1).padStart(7)} ${m(runs, 'cpuMsPerRequest').toFixed(3).padStart(7)}${db(runs)}`;
    console.log(`${variant.name.padEnd(34)} ${row(r)} | ${row(f)}`);
    const non200 = (runs: Measured[]) => runs.reduce((n, x) => n + Object.entries(x.statuses).reduce((k, [status, count]) => k + (status === '200' ? 0 : count), 0), 0);
    // A side that answered anything but 200 under load did other work than the check compared: no verdict stands on it.
    const failed = [non200(r) && `${non200(r)} non-200 from the relay`, non200(f) && `${non200(f)} from the floor`].filter(Boolean).join(', ');
    const answers = m(r, 'rps') / m(f, 'rps');
    const p99 = m(r, 'p99') / m(f, 'p99');
    const verdict = (met: boolean) => (failed ? `MISS (${failed})` : met ? 'OK' : 'MISS');
    const lines = [
      `${label} ${variant.name}: answers/s ratio ${answers.toFixed(3)} of the floor's (${m(r, 'rps').toFixed(0)} / ${m(f, 'rps').toFixed(0)}; target >= ${ANSWERS_TARGET}) ${verdict(answers >= ANSWERS_TARGET)}`,
      `${label} ${variant.name}: p99 ratio ${p99.toFixed(3)} of the floor's (${m(r, 'p99').toFixed(1)} ms / ${m(f, 'p99').toFixed(1)} ms; target <= ${P99_TARGET}) ${verdict(p99 <= P99_TARGET)}`,
    ];
    missed += lines.filter((line) => line.includes('MISS')).length;
    verdicts.push(...lines);
  }
  console.log(`\n${verdicts.join('\n')}`);
  console.log(`${label}: ${verdicts.length - missed} of ${verdicts.length} targets met`);
  return missed;
}
