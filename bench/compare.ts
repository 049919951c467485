/**
 * bench/compare: GET /api/v1/builds/:id/compare at BENCH_BUILDS (100,000) builds, against the
 * issue-28 target of under 50 ms. Two released ApiDemos builds (4.1.1, 5.0.0, npm aliases
 * apidemos-4/5) are uploaded for real; then builds up to BENCH_BUILDS are seeded by SQL as
 * bench/list seeds them, each with a build_contents row copied from one of the two (so every
 * comparison parses and compares two real contents documents). BENCH_REQUESTS (300) comparisons
 * of random seeded builds, one at a time, `to=previous` and `to=last_done` alternately; p50/p99.
 * Before that, the inspection cost per build: readBuildMetadata (metadata and contents, as an
 * upload reads them) on ApiDemos 5.0.0, BENCH_READS (50; 0 skips it) times in this process; median.
 * Run: npm run bench:compare   (not part of npm test)
 */
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { archiveTypeOf } from '../src/inspection/archive-type';
import { readBuildMetadata } from '../src/inspection/read-build-metadata';
import { BUILD_ROW_COLUMNS, LIST_BUILDS, SeedApp, seedBuilds } from './support/list-bench';
import { buildRelay, issuePat, ROOT, startRelay, stopChild } from './support/relay';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const READS = Number(process.env.BENCH_READS ?? 50);
const TARGET_MS = 50;
const APKS = ['apidemos-4', 'apidemos-5'].map((alias) => join(ROOT, 'node_modules', alias, 'apks', 'ApiDemos-debug.apk'));

const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function inspectionCost(): Promise<void> {
  const file = APKS[1];
  const size = statSync(file).size;
  const type = archiveTypeOf(file, readFileSync(file).subarray(0, 8));
  const times: number[] = [];
  for (let i = 0; i < READS + 5; i++) {
    const started = performance.now();
    const metadata = await readBuildMetadata(file, type, size);
    if (!metadata.contents) throw new Error('no contents read');
    if (i >= 5) times.push(performance.now() - started); // the first reads warm the JIT
  }
  times.sort((a, b) => a - b);
  console.log(`inspection of ApiDemos 5.0.0 (${(size / 1024 / 1024).toFixed(1)} MB, metadata + contents): median ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms over ${READS} reads (load ${load()})`);
}

async function upload(base: string, pat: string, file: string, name: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), name);
  const res = await fetch(`${base}/builds`, { method: 'POST', headers: { Authorization: `Bearer ${pat}` }, body: form });
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
}

/** Builds up to `count` (bench/list's seed), each with the contents of one of the uploaded ApiDemos builds. */
function seed(dbPath: string, buildsDir: string, count: number): number[] {
  const db = new Database(dbPath);
  const now = Date.now();
  const existing = (db.prepare('SELECT COUNT(*) AS n FROM builds').get() as { n: number }).n;
  const contents = db.prepare('SELECT format, data FROM build_contents ORDER BY build_id').all() as { format: number; data: string }[];
  const insertApp = db.prepare('INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (?, ?, ?, ?)');
  const insertBuild = db.prepare(`INSERT INTO builds (${BUILD_ROW_COLUMNS}) VALUES (${BUILD_ROW_COLUMNS.split(',').map(() => '?').join(', ')})`);
  const insertContents = db.prepare('INSERT INTO build_contents (build_id, format, data, computed_at) VALUES (?, ?, ?, ?)');
  mkdirSync(buildsDir, { recursive: true });
  const ids: number[] = [];
  db.transaction(() => {
    for (let i = 0; i < 96; i++) insertApp.run(`Seed app ${i}`, `com.example.seed${i}`, i % 2 ? 'ios' : 'android', now - 400 * 86_400_000);
    const apps = db.prepare('SELECT id, name, bundle_id_key AS bundle, platform FROM apps ORDER BY id').all() as SeedApp[];
    for (const { row } of seedBuilds(apps, existing, count, now)) {
      writeFileSync(join(buildsDir, row[8]), '');
      const buildId = Number(insertBuild.run(...row).lastInsertRowid);
      const copied = contents[buildId % contents.length];
      insertContents.run(buildId, copied.format, copied.data, now);
      ids.push(buildId);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return ids;
}

async function main(): Promise<void> {
  if (READS > 0) await inspectionCost();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-compare-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    for (const [i, apk] of APKS.entries()) await upload(relay.base, pat, apk, `apidemos-${i + 4}.apk`);
    await relay.stop();
    process.stdout.write(`Seeding ${LIST_BUILDS} builds with contents… `);
    const ids = seed(join(dataDir, 'svc.sqlite'), join(dataDir, 'builds'), LIST_BUILDS);
    process.stdout.write('done\n');
    relay = await startRelay(dataDir);
    children.push(relay.child);
    const headers = { Authorization: `Bearer ${pat}` };
    let state = 7;
    const random = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const times: number[] = [];
    const statuses: Record<number, number> = {};
    for (let i = 0; i < REQUESTS + 20; i++) {
      const id = ids[Math.floor(random() * ids.length)];
      const started = performance.now();
      const res = await fetch(`${relay.base}/builds/${id}/compare?to=${i % 2 ? 'last_done' : 'previous'}`, { headers });
      await res.arrayBuffer();
      if (i >= 20) {
        times.push(performance.now() - started);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }
    times.sort((a, b) => a - b);
    const p99 = percentile(times, 99);
    console.log(
      `GET /builds/:id/compare at ${LIST_BUILDS} builds: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${REQUESTS} requests ` +
        `(statuses ${JSON.stringify(statuses)}; load ${load()}) — ${p99 < TARGET_MS ? 'met' : 'MISSED'} (target < ${TARGET_MS} ms)`,
    );
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
