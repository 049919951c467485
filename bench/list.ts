/**
 * bench/list: GET /api/v1/builds at 100,000 builds (BENCH_BUILDS) on SQLite, every list variant of
 * spec §4, against a baseline measured in the same run (bench/baselines/list-server.ts: node:http +
 * better-sqlite3 on a copy of the same rows, same PAT check, same JSON shape).
 *
 * Seeding: a few real builds go through POST /builds (so their apps are created by the relay), then
 * the rest are written straight into the relay's tables in the same shape (plus an empty file per
 * build, since the start-up sweep removes rows whose file is missing). Before any load, every
 * variant's answer from the relay is compared with the baseline's: they must be identical.
 *
 * Each variant: BENCH_CONNECTIONS (32) keep-alive connections for BENCH_SECONDS (4) after 1 s of
 * warm-up, relay then baseline, BENCH_ROUNDS (3) times; the medians and the ratio are printed.
 * BENCH_ONLY=plain,status (variant names) narrows the run; BENCH_PROFILE=<dir> writes a CPU profile
 * of the relay (node --cpu-prof); BENCH_KEEP=1 keeps the seeded data folder.
 * Targets: ratio >= 0.5 for every variant; p99 < 25 ms for the indexed ones (all but q).
 * Also printed: each server's CPU time per request and their ratio ("cpu ratio" = baseline's CPU
 * per request / relay's): on a machine shared with other work this is the steadier comparison.
 */
import Database from 'better-sqlite3';
import { ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildRelay,
  freePort,
  issuePat,
  LoadResult,
  median,
  ROOT,
  runLoad,
  startRelay,
  stopChild,
  waitForListening,
} from './support/relay';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY?.split(',');
const PROFILE_DIR = process.env.BENCH_PROFILE;

interface Variant {
  name: string;
  paths: string[];
  indexed: boolean;
}

function variants(appId: number): Variant[] {
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

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    for (const fixture of ['literal-label.apk', 'string-label.apk', 'xml-root.app.zip', 'binary-root.tar.gz']) {
      await uploadFixture(relay.base, pat, fixture);
    }
    await relay.stop();

    process.stdout.write(`Seeding ${BUILDS} builds… `);
    const dbPath = join(dataDir, 'svc.sqlite');
    const busiestApp = seed(dbPath, join(dataDir, 'builds'), BUILDS);
    const baselineDb = join(work, 'baseline.sqlite');
    copyFileSync(dbPath, baselineDb);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, {}, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${BUILDS} builds`);
    const baselinePort = await freePort();
    const baseline = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, 'baselines', 'list-server.ts'), baselineDb, String(baselinePort)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(baseline);
    await waitForListening(baseline);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = variants(busiestApp);
    let mismatches = 0;
    for (const variant of list) {
      for (const path of variant.paths) {
        const [a, b] = await Promise.all(
          [relay.port, baselinePort].map((port) => fetch(`http://127.0.0.1:${port}${path}`, { headers }).then((r) => r.text())),
        );
        if (a !== b) {
          mismatches++;
          console.log(`MISMATCH ${variant.name} ${path}\n  relay:    ${a.slice(0, 300)}\n  baseline: ${b.slice(0, 300)}`);
        }
      }
    }
    console.log(mismatches ? `${mismatches} answers differ from the baseline` : 'every variant answers exactly as the baseline');

    const results = new Map<string, { relay: LoadResult[]; baseline: LoadResult[] }>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const variant of list) {
        const entry = results.get(variant.name) ?? { relay: [], baseline: [] };
        results.set(variant.name, entry);
        const load = (port: number, serverPid: number) =>
          runLoad({ port, serverPid, paths: variant.paths, headers, connections: CONNECTIONS, seconds: SECONDS });
        entry.relay.push(await load(relay.port, relay.child.pid!));
        entry.baseline.push(await load(baselinePort, baseline.pid!));
      }
      process.stdout.write(`round ${round}/${ROUNDS} done\n`);
    }

    console.log(`\nGET /builds, ${BUILDS} builds, ${CONNECTIONS} connections, median of ${ROUNDS} × ${SECONDS} s`);
    console.log(
      'variant                        relay req/s  p50 ms  p99 ms  cpu ms/req | baseline req/s  p99 ms  cpu ms/req | ratio  cpu ratio  verdict',
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
      const non200 = r.some((x) => Object.keys(x.statuses).some((s) => s !== '200'));
      const ok = ratio >= 0.5 && (!variant.indexed || p99 < 25) && !non200;
      if (!ok) failures++;
      console.log(
        `${variant.name.padEnd(30)} ${rps.toFixed(0).padStart(11)} ${p50.toFixed(1).padStart(7)} ${p99.toFixed(1).padStart(7)} ${cpu.toFixed(3).padStart(11)} |` +
          ` ${brps.toFixed(0).padStart(14)} ${bp99.toFixed(1).padStart(7)} ${bcpu.toFixed(3).padStart(11)} |` +
          ` ${ratio.toFixed(2).padStart(5)} ${(bcpu / cpu).toFixed(2).padStart(10)}  ${ok ? 'OK' : non200 ? 'NON-200' : 'MISS'}`,
      );
    }
    console.log(failures || mismatches ? `\n${failures} variant(s) below target` : '\nevery variant at or past its target');
    console.log(`relay RSS after the run: ${(rss(relay.child.pid!) / 1024).toFixed(0)} MB`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

async function uploadFixture(base: string, pat: string, name: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(ROOT, 'test', 'fixtures', 'builds', name))]), name);
  const res = await fetch(`${base}/builds`, { method: 'POST', headers: { Authorization: `Bearer ${pat}` }, body: form });
  if (res.status !== 201) throw new Error(`upload of ${name} answered ${res.status}: ${await res.text()}`);
}

/** Writes `count` builds (in total) over ~100 apps, as the relay would store them. Returns the busiest app's id. */
function seed(dbPath: string, buildsDir: string, count: number): number {
  const db = new Database(dbPath);
  let state = 42;
  const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const now = Date.now();
  const existing = db.prepare('SELECT COUNT(*) AS n FROM builds').get() as { n: number };
  const insertApp = db.prepare('INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (?, ?, ?, ?)');
  // Every seeded build has its upload entry in the status history, as the relay writes it: most by
  // the admin, some by a CI member without a display name, some by an account since deleted (the
  // entry keeps the name); a share of them have an icon. GET /builds shows both.
  const admin = db.prepare("SELECT id, email, display_name AS displayName FROM users WHERE role = 'Admin' ORDER BY id LIMIT 1").get() as {
    id: number;
    email: string;
    displayName: string | null;
  };
  const ci = db
    .prepare("INSERT INTO users (email, password_hash, display_name, role, created_at) VALUES ('ci-bot@example.com', 'x', NULL, 'Developer', ?)")
    .run(now).lastInsertRowid as number;
  const insertUpload = db.prepare(
    `INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at)
     VALUES (?, NULL, ?, ?, ?, ?, ?)`,
  );
  const insertIcon = db.prepare("INSERT INTO build_icons (build_id, mime, sha256, data_base64) VALUES (?, 'image/png', ?, ?)");
  // A 1×1 PNG: the list only says whether there is an icon.
  const iconBase64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const insertBuild = db.prepare(
    `INSERT INTO builds (app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id,
       file_name, original_name, file_size, uploaded_at, completed_at, delete_after)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  mkdirSync(buildsDir, { recursive: true });
  db.transaction(() => {
    for (let i = 0; i < 96; i++) {
      const platform = i % 2 ? 'ios' : 'android';
      insertApp.run(`Seed app ${i}`, `com.example.seed${i}`, platform, now - 400 * 86_400_000);
    }
    const apps = db.prepare('SELECT id, name, bundle_id_key AS bundle, platform FROM apps').all() as {
      id: number;
      name: string;
      bundle: string;
      platform: string;
    }[];
    const statuses = [null, 'Backlog', 'In Progress', 'Done', 'Rejected'] as const;
    const start = now - (count * 300_000 + 86_400_000);
    for (let i = existing.n; i < count; i++) {
      // A few busy apps, a long tail: the app_id variant reads one with thousands of builds.
      const app = random() < 0.3 ? apps[0] : pick(apps);
      const platform = app.platform === 'both' ? pick(['ios', 'android']) : app.platform;
      const status = pick(statuses);
      const uploadedAt = start + i * 300_000 + Math.floor(random() * 299_000);
      const versionName = random() < 0.1 ? null : `${Math.floor(random() * 10)}.${Math.floor(random() * 30)}.${Math.floor(random() * 100)}`;
      const fileName = `seed-${i}.${platform === 'ios' ? 'zip' : 'apk'}`;
      writeFileSync(join(buildsDir, fileName), '');
      const { lastInsertRowid: buildId } = insertBuild.run(
        app.id,
        app.name,
        versionName,
        String(1000 + i),
        random() < 0.3 ? `feature/branch-${Math.floor(random() * 500)}` : null,
        status,
        platform,
        app.bundle,
        fileName,
        platform === 'ios' ? 'App.app.zip' : 'app-release.apk',
        1_000_000 + Math.floor(random() * 50_000_000),
        uploadedAt,
        status === 'Done' || status === 'Rejected' ? uploadedAt + 3_600_000 : null,
        random() < 0.02 ? now + 30 * 86_400_000 : null,
      );
      const who = random();
      if (who < 0.8) insertUpload.run(buildId, status, admin.id, admin.displayName, admin.email, uploadedAt);
      else if (who < 0.95) insertUpload.run(buildId, status, ci, null, 'ci-bot@example.com', uploadedAt);
      else insertUpload.run(buildId, status, null, 'Former Member', 'former@example.com', uploadedAt);
      if (random() < 0.4) insertIcon.run(buildId, `seed-${i}`.padEnd(64, '0'), iconBase64);
    }
  })();
  const busiest = db.prepare('SELECT app_id AS id FROM builds GROUP BY app_id ORDER BY COUNT(*) DESC LIMIT 1').get() as { id: number };
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return busiest.id;
}

function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
