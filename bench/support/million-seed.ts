/**
 * bench/million's rows: a million builds written by SQL alone (INSERT … SELECT over a generated
 * series, in batches), on SQLite or PostgreSQL. No row is built in JavaScript, so seeding takes
 * minutes, not hours; the relay's own triggers (build_counts, the search text) run for every row
 * as they do for an upload.
 *
 * Every value is a function of the build's number `i` (the `r(i, k)` hashes below), so a run is
 * the same on both databases and every time: 50 apps (`APP_NAMES`, one platform each, skewed: the
 * busiest has ~14 % of the builds), a fifth of each status and unset, 10 % without a version, 30 %
 * with a `feature/branch-N` label, one upload every ~30 s over ~a year (increasing with `i`), 1 %
 * scheduled for deletion, 20 % with an icon, 2 % flagged, 70 % with provenance (branch `main` on
 * half of them, else one of 300 branches; a 40-hex commit; a tenth with one of 2,000 pull requests),
 * 15 % with a release gate's state, 5 % uploaded by an account since deleted.
 *
 * Files: none. The builds folder's sweep deletes rows whose file is missing, and `file_name` is
 * unique (no shared file), so bench/million runs the relay with the sweep off
 * (SVC_BUILD_FILE_SWEEP=false): a million empty files took 52 s to create. The sweep's own cost
 * is bench/sweep's (it once held the start for 45–73 s at a million; now it runs in slices, in the
 * background, bench/results/2026-11-27-665943d-million.md).
 */

import Database from 'better-sqlite3';
import { Client } from 'pg';
import type { ListCorpus } from './list-bench';
import { issuePat, startRelay } from './relay';

/** The 50 apps' names (the search's app-name terms). */
export const APP_NAMES = [
  'Acme Wallet', 'Pixel Notes', 'Harbor Chat', 'Lumen Reader', 'Atlas Maps', 'Nimbus Weather', 'Quill Journal', 'Orbit Fitness',
  'Cobalt Bank', 'Fern Garden', 'Echo Podcasts', 'Summit Travel', 'Mosaic Photos', 'Tundra VPN', 'Beacon Health', 'Saffron Recipes',
  'Vertex Tasks', 'Willow Meditate', 'Crimson Music', 'Delta Airlines Go', 'Granite CRM', 'Juniper Mail', 'Kestrel Rides', 'Lattice Docs',
  'Meridian Calendar', 'Nova Shop', 'Onyx Wallet Pro', 'Prism Camera', 'Quartz Scanner', 'Raven News', 'Sierra Parking', 'Tempo Timer',
  'Umbra Dark Mode', 'Vivid Paint', 'Wren Language', 'Xenon Games', 'Yarrow Pharmacy', 'Zephyr Weather Pro', 'Aurora Sleep', 'Bramble Kids',
  'Cinder Recipes Pro', 'Dune Finance', 'Ember Home', 'Flint Invoices', 'Glacier Backup', 'Hollow Stories', 'Iris Vision', 'Jade Market',
  'Kite Delivery', 'Lynx Security',
];

export interface SeedDatabase {
  dialect: 'sqlite' | 'postgres';
  /** Runs one statement (values bound as `?` on SQLite, `$n` on PostgreSQL: write them with `p()`). */
  run(sql: string, values?: unknown[]): Promise<void>;
  all<T>(sql: string, values?: unknown[]): Promise<T[]>;
}

export interface SeedResult {
  builds: number;
  seconds: number;
}

const BATCH = 100_000;
const DAY_MS = 86_400_000;

/** `r(i, k)`: the build's k-th pseudo-random number in [0, 1000003), the same expression on both databases. */
const r = (k: number) => `((i * 2654435761 + ${k * 97531 + 12345}) % 1000003)`;

export async function seedMillion(db: SeedDatabase, count: number, log: (line: string) => void): Promise<SeedResult> {
  const started = performance.now();
  const now = Date.now();
  const pg = db.dialect === 'postgres';
  const p = (n: number) => (pg ? `$${n}` : '?');
  const series = (from: number, to: number) =>
    pg
      ? `(SELECT i::bigint AS i FROM generate_series(${from}, ${to - 1}) AS g(i))`
      : `(WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to - 1}) SELECT i FROM s)`;

  const [{ n: existing }] = await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM builds');
  for (const [index, name] of APP_NAMES.entries()) {
    const bundle = `com.${name.toLowerCase().replace(/[^a-z]+/g, '')}.app`;
    await db.run(`INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`, [
      name,
      bundle,
      index % 2 ? 'ios' : 'android',
      now - 400 * DAY_MS,
    ]);
  }
  const apps = await db.all<{ id: number | string }>(`SELECT id FROM apps WHERE name IN (${APP_NAMES.map((_, i) => p(i + 1)).join(', ')}) ORDER BY id`, APP_NAMES);
  const firstApp = Number(apps[0].id);
  if (apps.length !== APP_NAMES.length || Number(apps[apps.length - 1].id) !== firstApp + APP_NAMES.length - 1) throw new Error('seeded apps are not consecutive');
  const [admin] = await db.all<{ id: number; email: string; display_name: string | null }>(
    "SELECT id, email, display_name FROM users WHERE role = 'Admin' ORDER BY id LIMIT 1",
  );

  // PostgreSQL: the search text's trigram index is built once after the rows (as its migration
  // builds it), not kept up row by row: 17 minutes of the seed's 18 with it in place.
  const trigramIndex = pg ? await db.all<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'IDX_builds_search_trgm'") : [];
  if (trigramIndex.length) await db.run('DROP INDEX "IDX_builds_search_trgm"');
  const total = count - Number(existing);
  const start = now - (total * 30_000 + DAY_MS);
  // The app: skewed towards the first ones (index = 50 · f², f uniform).
  const appIndex = `(${APP_NAMES.length} * ${r(1)} / 1000003 * ${r(1)} / 1000003)`;
  // `i` is the series' column (the apps have none): every r(k) reads it.
  const text = (expr: string) => `CAST(${expr} AS TEXT)`;
  for (let from = 0; from < total; from += BATCH) {
    const to = Math.min(total, from + BATCH);
    await db.run(
      `INSERT INTO builds (app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id, file_name,
         original_name, file_size, uploaded_at, completed_at, delete_after, gate_state)
       SELECT a.id, a.name,
         CASE WHEN ${r(2)} % 10 = 0 THEN NULL ELSE ${text(`${r(3)} % 10`)} || '.' || ${text(`${r(4)} % 30`)} || '.' || ${text(`${r(5)} % 100`)} END,
         ${text('1000 + i')},
         CASE WHEN ${r(6)} % 10 < 3 THEN 'feature/branch-' || ${text(`${r(7)} % 500`)} ELSE NULL END,
         CASE ${r(8)} % 5 WHEN 1 THEN 'Backlog' WHEN 2 THEN 'In Progress' WHEN 3 THEN 'Done' WHEN 4 THEN 'Rejected' ELSE NULL END,
         a.platform, a.bundle_id_key,
         'million-' || ${text('i')} || CASE a.platform WHEN 'ios' THEN '.zip' ELSE '.apk' END,
         CASE a.platform WHEN 'ios' THEN 'App.app.zip' ELSE 'app-release.apk' END,
         1000000 + ${r(9)} * 37,
         ${start} + i * 30000 + ${r(10)} % 29000,
         CASE WHEN ${r(8)} % 5 IN (3, 4) THEN ${start} + i * 30000 + ${r(10)} % 29000 + 3600000 ELSE NULL END,
         CASE WHEN ${r(11)} % 100 = 0 THEN ${now + 30 * DAY_MS} ELSE NULL END,
         CASE ${r(17)} % 20 WHEN 0 THEN 'pending' WHEN 1 THEN 'passed' WHEN 2 THEN 'failed' ELSE NULL END
       FROM ${series(from, to)} AS s JOIN apps a ON a.id = ${firstApp} + CAST(${appIndex} AS INTEGER)
       ORDER BY i`,
    );
    log(`  ${to.toLocaleString('en')} builds (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }

  // Beside each build: its upload entry (GET /builds shows the uploader), an icon on 20 %, flags on
  // 2 %, provenance on 70 %; `i` is again the build's number, from its id.
  const [{ first }] = await db.all<{ first: number | string }>(`SELECT MIN(id) AS first FROM builds WHERE file_name LIKE 'million-%'`);
  const seeded = `FROM (SELECT b.*, b.id - ${Number(first)} AS i FROM builds b WHERE b.id >= ${Number(first)}) AS b`;
  // 5 % uploaded by an account since deleted: the entry keeps its name and e-mail (the list shows them).
  await db.run(
    `INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at)
     SELECT b.id, NULL, b.status_label,
       CASE WHEN ${r(18)} % 20 = 0 THEN NULL ELSE CAST(${p(1)} AS INTEGER) END,
       CASE WHEN ${r(18)} % 20 = 0 THEN 'Former Member' ELSE ${p(2)} END,
       CASE WHEN ${r(18)} % 20 = 0 THEN 'former@example.com' ELSE ${p(3)} END,
       b.uploaded_at ${seeded} ORDER BY b.id`,
    [admin.id, admin.display_name, admin.email],
  );
  await db.run(
    `INSERT INTO build_icons (build_id, mime, sha256, data_base64)
     SELECT b.id, 'image/png', 'million', 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==' ${seeded}
     WHERE ${r(12)} % 5 = 0`,
  );
  await db.run(
    `INSERT INTO build_flags (build_id, compared_with_id, flag_count, flags)
     SELECT b.id, b.id - 1, 1, '[{"kind":"new_permission","reason":"New permission android.permission.CAMERA","subject":"android.permission.CAMERA","watched":true}]'
     ${seeded} WHERE ${r(13)} % 50 = 0`,
  );
  const hex = (k: number) => (pg ? `lpad(to_hex(${r(k)} * 1000003 + ${r(k + 1)}), 10, '0')` : `printf('%010x', ${r(k)} * 1000003 + ${r(k + 1)})`);
  // PostgreSQL: the per-branch count is filled once after the rows, as its migration fills it. Its trigger,
  // deferred to the commit, would update `main`'s one row 350,000 times in one transaction, each update
  // walking the versions the earlier ones left (the seed did not finish in 6 minutes; review-notes.md).
  if (pg) await db.run('ALTER TABLE build_provenance DISABLE TRIGGER build_provenance_branch_count');
  await db.run(
    `INSERT INTO build_provenance (build_id, commit_sha, branch, repository, pull_request, ci_url, changelog)
     SELECT b.id, ${hex(20)} || ${hex(22)} || ${hex(24)} || ${hex(26)},
       CASE WHEN ${r(15)} % 2 = 0 THEN 'main' ELSE 'feature/f-' || ${text(`${r(16)} % 300`)} END,
       'acme/mobile', CASE WHEN ${r(19)} % 10 = 0 THEN ${r(19)} % 2000 + 1 ELSE NULL END, NULL, NULL
     ${seeded} WHERE ${r(14)} % 10 < 7`,
  );
  if (pg) {
    await db.run(
      `INSERT INTO build_branch_counts (branch, n) SELECT branch, COUNT(*) FROM build_provenance WHERE branch IS NOT NULL AND build_id >= ${Number(first)} GROUP BY branch
       ON CONFLICT (branch) DO UPDATE SET n = build_branch_counts.n + EXCLUDED.n`,
    );
    await db.run('ALTER TABLE build_provenance ENABLE TRIGGER build_provenance_branch_count');
  }
  if (trigramIndex.length) await db.run(trigramIndex[0].indexdef);
  return { builds: count, seconds: (performance.now() - started) / 1000 };
}

/** What bench/support/list-bench.ts's variants ask of the seeded rows: the busiest app, a small one (~0.2 % of the builds), a commit, a pull request. */
export async function listCorpus(db: SeedDatabase, builds: number): Promise<ListCorpus> {
  const byApp = await db.all<{ id: number | string; n: number | string }>('SELECT app_id AS id, SUM(n) AS n FROM build_counts GROUP BY app_id ORDER BY SUM(n) DESC');
  const small = byApp.find((row) => Number(row.n) < builds * 0.003) ?? byApp[byApp.length - 1];
  // The newest build's commit (7 hex, the `commit=` filter's usual length) and pull request.
  const [{ c }] = await db.all<{ c: string }>('SELECT commit_sha AS c FROM build_provenance WHERE build_id = (SELECT MAX(build_id) FROM build_provenance)');
  const [pr] = await db.all<{ n: number | string }>('SELECT pull_request AS n FROM build_provenance WHERE pull_request IS NOT NULL ORDER BY build_id DESC LIMIT 1');
  return { builds, busiestApp: Number(byApp[0].id), smallApp: Number(small.id), commit: c.slice(0, 7), pullRequest: pr ? Number(pr.n) : 1 };
}

/** A data folder with the relay's tables, its admin and a PAT; `env` points it at its database. */
export async function prepare(dataDir: string, env: Record<string, string>): Promise<string> {
  const relay = await startRelay(dataDir, env);
  try {
    return await issuePat(relay.base);
  } finally {
    await relay.stop();
  }
}

/** The relay's SQLite file, opened for the seed (the relay stopped); close() checkpoints the WAL into it. */
export function sqliteSeedDatabase(path: string): SeedDatabase & { close(): void } {
  const db = new Database(path);
  return {
    dialect: 'sqlite',
    run: async (sql, values = []) => void db.prepare(sql).run(...values),
    all: async <T>(sql: string, values: unknown[] = []) => db.prepare(sql).all(...values) as T[],
    close: () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

/** The relay's PostgreSQL database, for the seed; close() vacuums and analyses as autovacuum would have. */
export async function postgresSeedDatabase(url: string): Promise<SeedDatabase & { close(): Promise<void> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    dialect: 'postgres',
    run: async (sql, values = []) => void (await client.query(sql, values)),
    all: async <T>(sql: string, values: unknown[] = []) => (await client.query(sql, values)).rows as T[],
    close: async () => {
      // As autovacuum would have done on a database that grew over months (visibility map, statistics).
      // build_counts took a million updates in a few transactions: its 245 live rows sat in ~1M
      // dead ones' pages, and every total's scan of them cost 50 ms; a relay that grew over months
      // has had them reclaimed as it went.
      await client.query('VACUUM FULL build_counts');
      await client.query('VACUUM ANALYZE');
      await client.end();
    },
  };
}
