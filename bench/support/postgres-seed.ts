/** The list benchmarks' rows on PostgreSQL: a fresh database per run, and builds written straight into the relay's tables. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { BUILD_ROW_COLUMNS, SEED_CI_MEMBER, SEED_FORMER_MEMBER, SEED_ICON_BASE64, SeedApp, seedBuilds } from './list-bench';

/** The server the benchmarks create their databases on (trust auth on this machine and in CI). */
export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function withPgAdmin<T>(body: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** A new empty database `svc_bench_<random>` (or a copy of `template`); its URL and how to drop it. */
export async function createBenchDatabase(template?: { name: string }): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = template ? `${template.name}_copy` : `svc_bench_${randomBytes(5).toString('hex')}`;
  await withPgAdmin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template.name}` : ''}`));
  return {
    name,
    url: Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${name}` }).toString(),
    drop: () => withPgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The server processes of the connections to this database (their CPU time is the database's work for them). */
export function backendPids(database: string): Promise<number[]> {
  return withPgAdmin(async (c) => {
    const { rows } = await c.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [database]);
    return rows.map((r) => Number(r.pid));
  });
}

/**
 * Writes builds up to `count` in all (seedBuilds) over 96 more apps, each with an empty file, its
 * upload entry in the status history and maybe an icon, as bench/list does on SQLite. Then VACUUM
 * ANALYZE, as autovacuum would have done on a database that grew over months. Returns the busiest
 * app's id.
 */
export async function seedPostgres(url: string, buildsDir: string, count: number): Promise<number> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const now = Date.now();
    mkdirSync(buildsDir, { recursive: true });
    await db.query(
      `INSERT INTO apps (name, bundle_id_key, platform, created_at)
       SELECT 'Seed app ' || i, 'com.example.seed' || i, CASE WHEN i % 2 = 1 THEN 'ios' ELSE 'android' END, $1
       FROM generate_series(0, 95) AS i`,
      [now - 400 * 86_400_000],
    );
    const apps = (await db.query('SELECT id, name, bundle_id_key AS bundle, platform FROM apps ORDER BY id')).rows as SeedApp[];
    const admin = (await db.query("SELECT id, email, display_name FROM users WHERE role = 'Admin' ORDER BY id LIMIT 1")).rows[0];
    const ci = (
      await db.query("INSERT INTO users (email, password_hash, display_name, role, created_at) VALUES ($1, 'x', NULL, 'Developer', $2) RETURNING id", [
        SEED_CI_MEMBER.email,
        now,
      ])
    ).rows[0];
    const uploaders = {
      admin: [admin.id, admin.display_name, admin.email],
      ci: [ci.id, SEED_CI_MEMBER.displayName, SEED_CI_MEMBER.email],
      former: [null, SEED_FORMER_MEMBER.displayName, SEED_FORMER_MEMBER.email],
    };
    const existing = Number((await db.query('SELECT COUNT(*) AS n FROM builds')).rows[0].n);
    const builds = seedBuilds(apps, existing, count, now);
    for (let batch = [...take(builds, 1000)]; batch.length; batch = [...take(builds, 1000)]) {
      const ids = (await insertRows(db, `builds (${BUILD_ROW_COLUMNS})`, batch.map((b) => b.row), 'RETURNING id')).map((r) => r.id);
      await insertRows(
        db,
        'build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at)',
        batch.map((b, i) => [ids[i], null, b.row[5], ...uploaders[b.uploader], b.row[11]]),
      );
      const withIcon = batch.flatMap((b, i) => (b.hasIcon ? [[ids[i], 'image/png', `seed-${ids[i]}`.padEnd(64, '0'), SEED_ICON_BASE64]] : []));
      if (withIcon.length) await insertRows(db, 'build_icons (build_id, mime, sha256, data_base64)', withIcon);
      for (const b of batch) writeFileSync(join(buildsDir, b.row[8]), '');
    }
    await db.query('VACUUM ANALYZE');
    const busiest = await db.query('SELECT app_id AS id FROM builds GROUP BY app_id ORDER BY COUNT(*) DESC LIMIT 1');
    return Number(busiest.rows[0].id);
  } finally {
    await db.end();
  }
}

/** One multi-row INSERT (rows come back in the order given). */
async function insertRows(db: Client, into: string, rows: unknown[][], returning = ''): Promise<{ id: number }[]> {
  const params: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((value) => (params.push(value), `$${params.length}`)).join(', ')})`);
  return (await db.query(`INSERT INTO ${into} VALUES ${tuples.join(', ')} ${returning}`, params)).rows;
}

function* take<T>(items: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const next = items.next();
    if (next.done) return;
    yield next.value;
  }
}
