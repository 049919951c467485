import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { timestamp } from '../migration-columns';

/**
 * Build contents and comparison (issue 28, docs/builds.md "Contents and comparison").
 *
 * - `build_contents`: what a build holds, as JSON text read whole (dialect-neutral), one row per
 *   build, going with it by the cascade like its icon.
 * - `app_compare_settings`: an app's thresholds and permission watch-list, going with the app.
 * - Two indexes so a comparison finds the build it compares with by one index seek whatever the
 *   number of builds: the previous build of the same app and platform (`…_app_platform_uploaded`),
 *   and the last Done one (`…_app_platform_status_uploaded`). `id` ends both: ties on upload time
 *   are broken by it, and PostgreSQL walks the index backwards for `uploaded_at DESC, id DESC`.
 */
export class BuildContents1700000017000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'build_contents',
        columns: [
          { name: 'build_id', type: 'integer', isPrimary: true },
          { name: 'format', type: 'integer' },
          { name: 'data', type: 'text' },
          timestamp('computed_at'),
        ],
        foreignKeys: [{ columnNames: ['build_id'], referencedTableName: 'builds', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'app_compare_settings',
        columns: [
          { name: 'app_id', type: 'integer', isPrimary: true },
          { name: 'data', type: 'text' },
        ],
        foreignKeys: [{ columnNames: ['app_id'], referencedTableName: 'apps', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createIndex('builds', new TableIndex({ name: 'IDX_builds_app_platform_uploaded', columnNames: ['app_id', 'platform', 'uploaded_at', 'id'] }));
    await q.createIndex(
      'builds',
      new TableIndex({ name: 'IDX_builds_app_platform_status_uploaded', columnNames: ['app_id', 'platform', 'status_label', 'uploaded_at', 'id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('builds', 'IDX_builds_app_platform_status_uploaded');
    await q.dropIndex('builds', 'IDX_builds_app_platform_uploaded');
    await q.dropTable('app_compare_settings');
    await q.dropTable('build_contents');
  }
}
