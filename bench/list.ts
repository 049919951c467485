/**
 * bench/list: GET /api/v1/builds at 100,000 builds (BENCH_BUILDS) on SQLite, every list variant of
 * spec §4, against a baseline measured in the same run (bench/baselines/list-server.ts: node:http +
 * better-sqlite3 on a copy of the same rows, same PAT check, same JSON shape).
 *
 * Seeding: a few real builds go through POST /builds (so their apps are created by the relay), then
 * the rest are written straight into the relay's tables in the same shape (plus an empty file per
 * build, since the start-up sweep removes rows whose file is missing). Before any load, every
 * variant's answer from the relay is compared with the baseline's: they must be identical.
 * bench/list-postgres does the same on PostgreSQL; the variants, the seeded builds, the comparison
 * and the rounds are bench/support/list-bench.ts.
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
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUILD_ROW_COLUMNS,
  compareAnswers,
  LIST_BUILDS,
  listVariants,
  measureVariants,
  SEED_CI_MEMBER,
  SEED_FORMER_MEMBER,
  SEED_ICON_BASE64,
  SeedApp,
  seedBuilds,
  uploadFixtures,
} from './support/list-bench';
import { buildRelay, freePort, issuePat, rssKb, startRelay, stopChild, startBaseline } from './support/relay';

const PROFILE_DIR = process.env.BENCH_PROFILE;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-list-'));
  const dataDir = join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    buildRelay();
    let relay = await startRelay(dataDir);
    children.push(relay.child);
    const pat = await issuePat(relay.base);
    await uploadFixtures(relay.base, pat);
    await relay.stop();

    process.stdout.write(`Seeding ${LIST_BUILDS} builds… `);
    const dbPath = join(dataDir, 'svc.sqlite');
    const busiestApp = seed(dbPath, join(dataDir, 'builds'), LIST_BUILDS);
    const baselineDb = join(work, 'baseline.sqlite');
    copyFileSync(dbPath, baselineDb);
    process.stdout.write('done\n');

    const profileArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    relay = await startRelay(dataDir, {}, profileArgs);
    children.push(relay.child);
    console.log(`relay ready in ${relay.startMs.toFixed(0)} ms at ${LIST_BUILDS} builds`);
    const baselinePort = await freePort();
    const baseline = await startBaseline('list-server.ts', [baselineDb], baselinePort);
    children.push(baseline);

    const headers = { Authorization: `Bearer ${pat}` };
    const list = listVariants(busiestApp);
    const mismatches = await compareAnswers(relay.port, baselinePort, list, headers);
    const failures = await measureVariants(
      `GET /builds, ${LIST_BUILDS} builds`,
      list,
      { port: relay.port, pid: relay.child.pid! },
      { port: baselinePort, pid: baseline.pid! },
      headers,
    );
    console.log(failures || mismatches ? `\n${failures} variant(s) below target` : '\nevery variant at or past its target');
    console.log(`relay RSS after the run: ${((rssKb(relay.child.pid!) ?? 0) / 1024).toFixed(0)} MB`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Writes builds up to `count` in all (seedBuilds) over 96 more apps, as the relay would store them:
 * each with an empty file, its upload entry in the status history and maybe an icon. Returns the
 * busiest app's id.
 */
function seed(dbPath: string, buildsDir: string, count: number): number {
  const db = new Database(dbPath);
  const now = Date.now();
  const existing = db.prepare('SELECT COUNT(*) AS n FROM builds').get() as { n: number };
  const insertApp = db.prepare('INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (?, ?, ?, ?)');
  const admin = db.prepare("SELECT id, email, display_name AS displayName FROM users WHERE role = 'Admin' ORDER BY id LIMIT 1").get() as {
    id: number;
    email: string;
    displayName: string | null;
  };
  const ci = db
    .prepare("INSERT INTO users (email, password_hash, display_name, role, created_at) VALUES (?, 'x', NULL, 'Developer', ?)")
    .run(SEED_CI_MEMBER.email, now).lastInsertRowid as number;
  const uploaders = {
    admin: [admin.id, admin.displayName, admin.email],
    ci: [ci, SEED_CI_MEMBER.displayName, SEED_CI_MEMBER.email],
    former: [null, SEED_FORMER_MEMBER.displayName, SEED_FORMER_MEMBER.email],
  };
  const insertUpload = db.prepare(
    `INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at)
     VALUES (?, NULL, ?, ?, ?, ?, ?)`,
  );
  const insertIcon = db.prepare("INSERT INTO build_icons (build_id, mime, sha256, data_base64) VALUES (?, 'image/png', ?, ?)");
  const insertBuild = db.prepare(`INSERT INTO builds (${BUILD_ROW_COLUMNS}) VALUES (${BUILD_ROW_COLUMNS.split(',').map(() => '?').join(', ')})`);
  mkdirSync(buildsDir, { recursive: true });
  db.transaction(() => {
    for (let i = 0; i < 96; i++) {
      insertApp.run(`Seed app ${i}`, `com.example.seed${i}`, i % 2 ? 'ios' : 'android', now - 400 * 86_400_000);
    }
    const apps = db.prepare('SELECT id, name, bundle_id_key AS bundle, platform FROM apps ORDER BY id').all() as SeedApp[];
    for (const { row, uploader, hasIcon } of seedBuilds(apps, existing.n, count, now)) {
      writeFileSync(join(buildsDir, row[8]), '');
      const { lastInsertRowid: buildId } = insertBuild.run(...row);
      insertUpload.run(buildId, row[5], ...uploaders[uploader], row[11]);
      if (hasIcon) insertIcon.run(buildId, `seed-${buildId}`.padEnd(64, '0'), SEED_ICON_BASE64);
    }
  })();
  const busiest = db.prepare('SELECT app_id AS id FROM builds GROUP BY app_id ORDER BY COUNT(*) DESC LIMIT 1').get() as { id: number };
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return busiest.id;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
