/** The list benchmarks' rows on PostgreSQL: a fresh database per run, and builds written straight into the relay's tables. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { BUILD_ROW_COLUMNS, SeedApp, seedBuildRows } from './list-bench';

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
 * Writes builds up to `count` in all (seedBuildRows) over 96 more apps, each with an empty file and,
 * as the relay writes at upload, a first status-history entry by the first member; half of them
 * get an icon. Then VACUUM ANALYZE, as autovacuum would have done on a database that grew over
 * months. Returns the busiest app's id.
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
    const before = (await db.query('SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS last FROM builds')).rows[0];
    const [existing, lastBefore] = [Number(before.n), Number(before.last)];
    const rows = seedBuildRows(apps, existing, count, now);
    for (let batch = [...take(rows, 1000)]; batch.length; batch = [...take(rows, 1000)]) {
      const params: unknown[] = [];
      const tuples = batch.map((row) => `(${row.map((value) => (params.push(value), `$${params.length}`)).join(', ')})`);
      await db.query(`INSERT INTO builds (${BUILD_ROW_COLUMNS}) VALUES ${tuples.join(', ')}`, params);
      for (const row of batch) writeFileSync(join(buildsDir, row[8]), '');
    }
    const { id: memberId, email } = (await db.query('SELECT id, email FROM users ORDER BY id LIMIT 1')).rows[0];
    await db.query(
      `INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at)
       SELECT id, NULL, status_label, $2, NULL, $3, uploaded_at FROM builds WHERE id > $1 ORDER BY id`,
      [lastBefore, memberId, email],
    );
    await db.query(
      `INSERT INTO build_icons (build_id, mime, sha256, data_base64)
       SELECT id, 'image/png', md5(id::text) || md5(id::text), 'iVBORw0KGgo=' FROM builds WHERE id > $1 AND id % 2 = 0`,
      [lastBefore],
    );
    await db.query('VACUUM ANALYZE');
    const busiest = await db.query('SELECT app_id AS id FROM builds GROUP BY app_id ORDER BY COUNT(*) DESC LIMIT 1');
    return Number(busiest.rows[0].id);
  } finally {
    await db.end();
  }
}

function* take<T>(items: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const next = items.next();
    if (next.done) return;
    yield next.value;
  }
}
