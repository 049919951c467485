import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

export const APPS_UNIQUE_BUNDLE_INDEX = 'UQ_apps_platform_bundle_id_key';

/**
 * One app per (platform, bundle id): two uploads of a new bundle id at once could each find no app
 * and create one (PostgreSQL, READ COMMITTED). The unique key makes the second insert lose; the
 * catalogue then reads the winner's app.
 *
 * Existing duplicates are merged first into the app builds were already filed under: the lowest id
 * of each (platform, bundle_id_key) group (the resolution has always picked the oldest match). The
 * other apps' builds (with their comments and history) move to it and the emptied apps are
 * deleted; their names are lost, the builds are not.
 */
export class AppsUniqueBundle1700000013000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    const keeperOf = `(SELECT MIN(k.id) FROM apps k WHERE k.platform = apps.platform AND k.bundle_id_key = apps.bundle_id_key)`;
    const duplicates = `SELECT apps.id FROM apps WHERE apps.id <> ${keeperOf}`;
    await q.query(
      `UPDATE builds SET app_id = (SELECT MIN(k.id) FROM apps k, apps a
         WHERE a.id = builds.app_id AND k.platform = a.platform AND k.bundle_id_key = a.bundle_id_key)
       WHERE app_id IN (${duplicates})`,
    );
    await q.query(`DELETE FROM apps WHERE id IN (${duplicates})`);
    await q.createIndex('apps', new TableIndex({ name: APPS_UNIQUE_BUNDLE_INDEX, columnNames: ['platform', 'bundle_id_key'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('apps', APPS_UNIQUE_BUNDLE_INDEX);
  }
}
