/**
 * What the GET /builds benchmarks share, whichever database holds the rows: the variants of spec §4,
 * the fixture uploads through the API, the seeded rows, the "same answers first" check, the load
 * rounds and the table of medians and ratios. The database-specific parts (writing the rows, the
 * baseline server) stay in bench/list.ts, bench/list-postgres.ts and bench/scale/list.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMs, LoadResult, median, ROOT, runLoad } from './relay';

export const LIST_BUILDS = Number(process.env.BENCH_BUILDS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY?.split(',');

export interface Variant {
  name: string;
  paths: string[];
  indexed: boolean;
}

/** Every list variant of spec §4 (BENCH_ONLY narrows them by name); `appId` is the busiest app. */
export function listVariants(appId: number): Variant[] {
  const v = (name: string, query: string, indexed = true): Variant => ({ name, paths: [`/api/v1/builds?${query}`], indexed });
  return [
    v('plain', 'limit=20'),
    v('status', 'status=Done'),
    v('platform', 'platform=ios'),
    v('app_id', `app_id=${appId}`),
    v('q', 'q=1.2', false),
    v('uploaded_at asc', 'sort=uploaded_at&dir=asc'),
    v('version_name desc', 'sort=version_name&dir=desc'),
    v('version_name asc', 'sort=version_name&dir=asc'),
    v('status_label desc', 'sort=status_label&dir=desc'),
    v('status_label asc', 'sort=status_label&dir=asc'),
    v('page 1000', 'page=1000'),
    v('status page 500', 'status=Done&page=500'),
    v('version_name asc page 1000', 'sort=version_name&dir=asc&page=1000'),
    v('limit 100', 'limit=100'),
  ].filter((variant) => !ONLY || ONLY.includes(variant.name));
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

/** Fetches every variant from both servers and prints any difference; returns how many differ. */
export async function compareAnswers(relayPort: number, baselinePort: number, list: Variant[], headers: Record<string, string>): Promise<number> {
  let mismatches = 0;
  for (const variant of list) {
    for (const path of variant.paths) {
      const [a, b] = await Promise.all(
        [relayPort, baselinePort].map((port) => fetch(`http://127.0.0.1:${port}${path}`, { headers }).then((r) => r.text())),
      );
      if (a !== b) {
        mismatches++;
        const at = [...a].findIndex((c, i) => c !== b[i]);
        console.log(`MISMATCH ${variant.name} ${path} (from character ${at})\n  relay:    ${a.slice(Math.max(0, at - 100), at + 200)}\n  baseline: ${b.slice(Math.max(0, at - 100), at + 200)}`);
      }
    }
  }
  console.log(mismatches ? `${mismatches} answers differ from the baseline` : 'every variant answers exactly as the baseline');
  return mismatches;
}

export interface Server {
  port: number;
  pid: number;
  /** Processes working for this server whose CPU time counts too (PostgreSQL backends of its connections). */
  helperPids?: () => Promise<number[]>;
}

interface Measured extends LoadResult {
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

/**
 * BENCH_ROUNDS rounds of BENCH_SECONDS of load per variant from BENCH_CONNECTIONS connections,
 * relay then baseline; prints the medians, the ratios and the verdicts (targets: ratio >= 0.5,
 * p99 < 25 ms for the indexed variants, every answer 200). Returns how many variants missed.
 */
export async function measureVariants(
  title: string,
  list: Variant[],
  relay: Server,
  baseline: Server,
  headers: Record<string, string>,
): Promise<number> {
  const results = new Map<string, { relay: Measured[]; baseline: Measured[] }>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of list) {
      const entry = results.get(variant.name) ?? { relay: [], baseline: [] };
      results.set(variant.name, entry);
      const load = (server: Server) =>
        runLoad({ port: server.port, serverPid: server.pid, paths: variant.paths, headers, connections: CONNECTIONS, seconds: SECONDS });
      entry.relay.push(await measure(relay, load));
      entry.baseline.push(await measure(baseline, load));
    }
    process.stdout.write(`round ${round}/${ROUNDS} done\n`);
  }

  const helpers = Boolean(relay.helperPids);
  console.log(`\n${title}, ${CONNECTIONS} connections, median of ${ROUNDS} × ${SECONDS} s`);
  if (helpers) console.log('(db ms/req: CPU time of the database backends serving each side, per answer; the cpu ratio counts it)');
  console.log(
    'variant                        relay req/s  p50 ms  p99 ms  cpu ms/req' + (helpers ? ' db ms/req' : '') +
      ' | baseline req/s  p99 ms  cpu ms/req' + (helpers ? ' db ms/req' : '') + ' | ratio  cpu ratio  verdict',
  );
  let failures = 0;
  for (const variant of list) {
    const { relay: r, baseline: b } = results.get(variant.name)!;
    const rps = median(r.map((x) => x.rps));
    const p50 = median(r.map((x) => x.p50));
    const p99 = median(r.map((x) => x.p99));
    const brps = median(b.map((x) => x.rps));
    const bp99 = median(b.map((x) => x.p99));
    const ratio = rps / brps;
    const cpu = median(r.map((x) => x.cpuMsPerRequest));
    const bcpu = median(b.map((x) => x.cpuMsPerRequest));
    const dbCpu = (runs: Measured[]) => (helpers ? median(runs.map((x) => x.helperCpuMsPerRequest)) : 0);
    const db = (runs: Measured[]) => (helpers ? dbCpu(runs).toFixed(3).padStart(10) : '');
    const cpuRatio = (bcpu + dbCpu(b)) / (cpu + dbCpu(r));
    const non200 = r.some((x) => Object.keys(x.statuses).some((s) => s !== '200'));
    const ok = ratio >= 0.5 && (!variant.indexed || p99 < 25) && !non200;
    if (!ok) failures++;
    console.log(
      `${variant.name.padEnd(30)} ${rps.toFixed(0).padStart(11)} ${p50.toFixed(1).padStart(7)} ${p99.toFixed(1).padStart(7)} ${cpu.toFixed(3).padStart(11)}${db(r)} |` +
        ` ${brps.toFixed(0).padStart(14)} ${bp99.toFixed(1).padStart(7)} ${bcpu.toFixed(3).padStart(11)}${db(b)} |` +
        ` ${ratio.toFixed(2).padStart(5)} ${cpuRatio.toFixed(2).padStart(10)}  ${ok ? 'OK' : non200 ? 'NON-200' : 'MISS'}`,
    );
  }
  return failures;
}
