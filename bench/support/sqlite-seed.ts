/** The list benchmarks' rows on SQLite: builds written straight into the relay's tables (bench/list, bench/search). */
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_ROW_COLUMNS, SEED_CI_MEMBER, SEED_FORMER_MEMBER, SEED_ICON_BASE64, SeedApp, seedBuilds } from './list-bench';

/**
 * Writes builds up to `count` in all (seedBuilds) over 96 more apps, as the relay would store them:
 * each with an empty file, its upload entry in the status history and maybe an icon. Returns the
 * busiest app's id.
 */
export function seedSqlite(dbPath: string, buildsDir: string, count: number): number {
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
