import type { Insertable } from 'kysely';
import { QueryBuilder } from '../../src/database/query-builder/query-builder';
import type { Database } from '../../src/database/query-builder/tables';
import type { MediumDatabase } from './medium-database';

/** A build as the list needs it; what a test leaves out is a plain iOS build of its app. */
export type SeedBuild = Partial<Omit<Insertable<Database['builds']>, 'id' | 'app_id' | 'search_text'>>;

/**
 * Rows written straight into a medium database for repositories that read builds (the list, the
 * release gate): an app, then its builds, through the dialect's own statements so the triggers that
 * keep the counts and the search text run as they do for an upload.
 */
export async function seedApp(db: MediumDatabase, name: string, bundleId: string, platform: 'ios' | 'android' = 'ios'): Promise<number> {
  const { db: k } = QueryBuilder.of(db.dataSource);
  const { sql, parameters } = k.insertInto('apps').values({ name, bundle_id_key: bundleId, platform, created_at: db.clock.nowMs() }).returning('id').compile();
  const [row] = await db.sql.query<{ id: number | string }>(sql, [...parameters]);
  return Number(row.id);
}

export async function seedBuild(db: MediumDatabase, appId: number, build: SeedBuild = {}): Promise<number> {
  const { db: k } = QueryBuilder.of(db.dataSource);
  const values: Insertable<Database['builds']> = {
    app_id: appId,
    name: 'App',
    platform: 'ios',
    bundle_id: 'com.example.app',
    file_name: `${Math.random().toString(36).slice(2)}.ipa`,
    original_name: 'App.ipa',
    file_size: 1000,
    uploaded_at: db.clock.nowMs(),
    completed_at: db.clock.nowMs(),
    ...build,
  };
  const { sql, parameters } = k.insertInto('builds').values(values).returning('id').compile();
  const [row] = await db.sql.query<{ id: number | string }>(sql, [...parameters]);
  return Number(row.id);
}
